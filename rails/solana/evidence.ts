import type { ChainIngest } from "../types.ts";
import { lib } from "./library.ts";
import { forgetSolanaChains } from "./readModel/forgetChains.ts";
import { solanaEvidenceHorizons, solanaIndexedHeads } from "./readModel/ingestHeads.ts";
import { loadSolanaCredits } from "./readModel/loadCredits.ts";
import { newSolanaEvidence } from "./readModel/newEvidence.ts";

/**
 * Solana evidence from the subscriber (`ingest/`, the `solana` role): balance changes of
 * watched token accounts, detected at `confirmed`, final at `finalized`. Money reaches a
 * Solana payment's own accounts directly: nothing is ever in transit.
 */
export const solanaEvidence: ChainIngest = {
  name: "solana",
  indexedHeads: (ctx) => solanaIndexedHeads(ctx.db, ctx.config),
  // The block time through which the subscriber has polled every watched account.
  evidenceHorizons: (ctx) => solanaEvidenceHorizons(ctx.db),
  loadCredits: (ctx, payments) => loadSolanaCredits(ctx, payments),
  newEvidence: newSolanaEvidence,
  evidenceAheadOfHead: true,
  // The subscriber NOTIFYs itself when it commits (its tables come with the migrations).
  announceIngest: async () => true,
  replay: (ctx, network, range, options) => lib().replaySlots(ctx, network, range, options),
  ingestTerms: { unit: "slots", follower: "the subscriber" },
  ingestRole: "solana",
  forgetChains: forgetSolanaChains,
  refreshEvidence: (ctx, payment, network) => lib().refreshEvidence(ctx, payment, network),
  transactionSender: (network, transaction, timeoutMs) => lib().transactionSender(network, transaction, timeoutMs),
};

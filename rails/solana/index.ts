import { findTransferOut } from "../../db/transfersOut.ts";
import type { Rail } from "../types.ts";
import { replaySlots } from "./ingest/replaySlots.ts";
import { balanceOf } from "./balanceOf.ts";
import { chainHead, finalizedHead } from "./chainHead.ts";
import { contractDescription } from "./contractDescription.ts";
import { normalizeSolanaAddress } from "./normalizeAddress.ts";
import { operatorStatus } from "./operatorStatus.ts";
import { preparePayment } from "./preparePayment.ts";
import { solanaEvidenceHorizons, solanaIndexedHeads } from "./readModel/ingestHeads.ts";
import { loadSolanaCredits } from "./readModel/loadCredits.ts";
import { newSolanaEvidence } from "./readModel/newEvidence.ts";
import { cancelTransferOut } from "./transfers/cancelTransferOut.ts";
import { executeTransferOut } from "./transfers/executeTransferOut.ts";
import { supportsKind, unavailable } from "./unavailable.ts";
import { refreshEvidence, verifySubmission } from "./verifySubmission.ts";
import { paymentUri, walletInstructions } from "./walletInstructions.ts";

/**
 * Solana: direct payments as Solana Pay transfers to the merchant carrying a
 * per-payment reference, deposit addresses as per-payment keys (SLIP-0010 from a sealed
 * master seed) whose token accounts are swept by the operator, evidence from the
 * subscriber (`ingest/`, the `solana` role): balance changes of watched token accounts,
 * detected at `confirmed`, final at `finalized`.
 */
export const solanaRail: Rail = {
  name: "solana",
  supports: supportsKind,
  unavailable,
  normalizeAddress: normalizeSolanaAddress,
  prepare: preparePayment,
  paymentUri,
  walletInstructions,
  // No browser-wallet button on Solana yet: the checkout page shows the Solana Pay QR code.
  // A deposit's account is derived from the service's seed; Solana Pay pays the merchant's wallet.
  holdsFunds: (payment) => payment.kind === "deposit",
  checkoutWallet: () => null,
  contract: contractDescription,
  indexedHeads: (ctx) => solanaIndexedHeads(ctx.db, ctx.config),
  // The block time through which the subscriber has polled every watched account.
  evidenceHorizons: (ctx) => solanaEvidenceHorizons(ctx.db),
  loadCredits: (ctx, payments) => loadSolanaCredits(ctx, payments),
  newEvidence: newSolanaEvidence,
  // Money reaches a Solana payment's own accounts directly: nothing is ever in transit.
  inTransit: async () => new Map(),
  evidenceAheadOfHead: true,
  ingestTerms: { unit: "slots", follower: "the subscriber" },
  ingestRole: "solana",
  replay: replaySlots,
  refreshEvidence,
  // The subscriber NOTIFYs itself when it commits (its tables come with the migrations).
  announceIngest: async () => true,
  verifySubmission,
  chainHead,
  finalizedHead,
  balanceOf,
  operatorStatus,
  executeTransferOut,
  // A Solana sweep or refund is confirmed only once finalized: no reorg can take it back.
  recheckTransferOut: async (ctx, rowId) => (await findTransferOut(ctx.db, rowId))!,
  cancelTransferOut: (ctx, rowId) => cancelTransferOut(ctx, rowId),
};

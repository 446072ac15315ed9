import type { ChainIngest } from "../types.ts";
import { evmClient } from "./client.ts";
import { replayRange } from "./ingest/replayRange.ts";
import { announceIndexerCommits } from "./readModel/announceIngest.ts";
import { evidenceHorizons } from "./readModel/evidenceHorizons.ts";
import { indexedBlocks } from "./readModel/indexedBlocks.ts";
import { loadIndexedCredits } from "./readModel/loadCredits.ts";
import { newIndexedEvidence } from "./readModel/newEvidence.ts";
import { pruneUnreferencedTransfers } from "./readModel/pruneUnreferenced.ts";
import { transactionSender } from "./transactionSender.ts";

/**
 * EVM evidence: Ponder (`indexer/`, the `indexer` role) indexes transfers and settlement
 * events; `readModel/` reads them. Money reaches an EVM payment on its own chain, so nothing
 * is ever in transit, and ingest is all there is to look at.
 */
export const evmEvidence: ChainIngest = {
  name: "evm",
  indexedHeads: (ctx) => indexedBlocks(ctx.db, ctx.config.indexer.viewsSchema),
  evidenceHorizons: (ctx) => evidenceHorizons(ctx.db, ctx.config.indexer.viewsSchema),
  loadCredits: (ctx, payments) => loadIndexedCredits(ctx, payments),
  newEvidence: newIndexedEvidence,
  evidenceAheadOfHead: false,
  announceIngest: announceIndexerCommits,
  replay: replayRange,
  ingestTerms: { unit: "blocks", follower: "the indexer" },
  ingestRole: "indexer",
  pruneIngested: pruneUnreferencedTransfers,
  transactionSender: (network, transaction, timeoutMs) => transactionSender(evmClient(network, timeoutMs), transaction),
};

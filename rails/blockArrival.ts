/**
 * A block is stamped before it reaches the nodes (Ethereum stamps it at its slot's start and
 * it arrives seconds later): finding the indexer at the head proves every block stamped up
 * to this long before the check was read, not every block stamped before the check. Shared
 * by every ingest's watch (`reconcile/watchIngest.ts`), not one chain's.
 */
export const BLOCK_ARRIVAL_MARGIN_MS = 30_000;

import type { ChainStatus } from "../../rails/chainStatus.ts";

export type ChainState = "ok" | "lagging" | "down";

/**
 * A chain's state as `/payments/health` names it: `down` when no provider answers or ingest
 * has recorded nothing; `lagging` when ingest is further behind than INDEXER_MAX_LAG_BLOCKS or
 * the worker's watch has a stall open on it; else `ok`. `since`: when the stall began (the
 * worker's record, shared by every process), null when none is recorded.
 */
export function chainState(status: ChainStatus, maxLag: bigint, stalledSince: Date | undefined): { state: ChainState; since: string | null } {
  const since = stalledSince?.toISOString() ?? null;
  if (!status.rpcReachable || status.indexedBlock === null) return { state: "down", since };
  if (stalledSince || (status.lag !== null && status.lag > maxLag)) return { state: "lagging", since };
  return { state: "ok", since: null };
}

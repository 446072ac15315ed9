import type { Network } from "../../config/types.ts";
import { withTimeout } from "../../domain/withTimeout.ts";
import { blockTime } from "./blockTime.ts";
import { evmClient } from "./client.ts";

/** Blocks the mean is taken over. */
const SAMPLE = 100n;

/**
 * The chain's recent mean seconds per block, from the timestamps of block `at` and the
 * block up to 100 below it; null when there is no block below `at` to compare with.
 */
export async function secondsPerBlock(network: Network, at: bigint, timeoutMs: number): Promise<number | null> {
  const span = at < SAMPLE ? at : SAMPLE;
  if (span === 0n) return null;
  const client = evmClient(network, timeoutMs);
  const [newer, older] = await withTimeout(Promise.all([blockTime(client, at), blockTime(client, at - span)]), timeoutMs, `${network.shortName} block times`);
  return (newer.getTime() - older.getTime()) / 1000 / Number(span);
}

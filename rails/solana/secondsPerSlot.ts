import type { Connection } from "@solana/web3.js";

/** Slots the mean is taken over. */
const SAMPLE = 100n;

/**
 * The chain's recent mean seconds per slot, from the block times of slot `at` and the slot
 * up to 100 below it; null when there is no slot below it, or the node cannot tell a time.
 */
export async function secondsPerSlot(connection: Connection, at: bigint): Promise<number | null> {
  const span = at < SAMPLE ? at : SAMPLE;
  if (span === 0n) return null;
  const [newer, older] = await Promise.all([connection.getBlockTime(Number(at)), connection.getBlockTime(Number(at - span))]).catch(() => [null, null]);
  if (newer == null || older == null) return null;
  return (newer - older) / Number(span);
}

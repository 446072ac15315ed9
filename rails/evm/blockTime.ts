import type { PublicClient } from "viem";

/** A block's timestamp. */
export async function blockTime(client: PublicClient, blockNumber: bigint): Promise<Date> {
  const block = await client.getBlock({ blockNumber });
  return new Date(Number(block.timestamp) * 1000);
}

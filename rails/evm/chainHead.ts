import type { Network } from "../../config/types.ts";
import { withTimeout } from "../withTimeout.ts";
import { blockTime } from "./blockTime.ts";
import { evmClient } from "./client.ts";

/** The chain's latest block number, from its RPC. */
export function chainHead(network: Network, timeoutMs: number): Promise<bigint> {
  return withTimeout(evmClient(network, timeoutMs).getBlockNumber({ cacheTime: 0 }), timeoutMs, `${network.shortName} head`);
}

/** The time of block `head`. */
export function headTime(network: Network, head: bigint, timeoutMs: number): Promise<Date> {
  return withTimeout(blockTime(evmClient(network, timeoutMs), head), timeoutMs, `${network.shortName} block ${head}`);
}

/**
 * The newest block the chain can no longer reorganize: `finalityBlocks` below the head
 * when the operator fixed it, else the node's `finalized` block. A node without that tag
 * gets a conservative stand-in: twice the required confirmations below the head.
 */
export async function finalizedHead(network: Network, timeoutMs: number): Promise<bigint> {
  if (network.finalityBlocks !== null) return below(await chainHead(network, timeoutMs), network.finalityBlocks - 1);
  const block = await withTimeout(evmClient(network, timeoutMs).getBlock({ blockTag: "finalized" }), timeoutMs, `${network.shortName} finalized block`).catch(
    (error: Error) => {
      // A node without the tag answers "invalid block tag"/"unknown block"; anything else is a real failure.
      if (/finali[sz]ed|block tag|unknown block|not supported|invalid/i.test(error.message)) return null;
      throw error;
    },
  );
  return block ? block.number : below(await chainHead(network, timeoutMs), 2 * Math.max(1, network.requiredConfirmations));
}

const below = (head: bigint, blocks: number) => (head > BigInt(blocks) ? head - BigInt(blocks) : 0n);

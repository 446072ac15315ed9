import { BaseError, RpcRequestError } from "viem";
import type { Network } from "../../config/types.ts";
import { withTimeout } from "../../domain/withTimeout.ts";
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
      if (lacksFinalizedTag(error)) return null;
      throw error;
    },
  );
  return block ? block.number : below(await chainHead(network, timeoutMs), 2 * Math.max(1, network.requiredConfirmations));
}

/**
 * Whether the node itself answered that it has no `finalized` block (a JSON-RPC error whose
 * message says so: "invalid block tag", "unknown block", …). A timeout, an HTTP error (429,
 * 5xx) or a refused connection is a failure, not that answer: read as one, the stand-in's
 * blocks — not final on an L2 — would be swept, refunded and replayed from as if they were.
 * (viem's own message names the request, `"finalized"` included, so only the node's is read.)
 */
function lacksFinalizedTag(error: Error): boolean {
  const answer = error instanceof BaseError ? (error.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null) : null;
  return answer !== null && /finali[sz]ed|block tag|unknown block|not supported|invalid (argument|param|block)/i.test(answer.details);
}

const below = (head: bigint, blocks: number) => (head > BigInt(blocks) ? head - BigInt(blocks) : 0n);

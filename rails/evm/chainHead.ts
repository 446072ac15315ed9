import type { Network } from "../../config/types.ts";
import { withTimeout } from "../withTimeout.ts";
import { evmClient } from "./client.ts";

/** The chain's latest block number, from its RPC. */
export function chainHead(network: Network, timeoutMs: number): Promise<bigint> {
  return withTimeout(evmClient(network, timeoutMs).getBlockNumber({ cacheTime: 0 }), timeoutMs, `${network.shortName} head`);
}

/** The chain's `finalized` block; null where the chain (or its RPC) has no such tag. */
export async function finalizedHead(network: Network, timeoutMs: number): Promise<bigint | null> {
  const block = await withTimeout(evmClient(network, timeoutMs).getBlock({ blockTag: "finalized" }), timeoutMs, `${network.shortName} finalized block`).catch(
    (error: Error) => {
      // A node without the tag answers "invalid block tag"/"unknown block"; anything else is a real failure.
      if (/finali[sz]ed|block tag|unknown block|not supported|invalid/i.test(error.message)) return null;
      throw error;
    },
  );
  return block?.number ?? null;
}

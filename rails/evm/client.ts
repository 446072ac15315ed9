import { createPublicClient, type PublicClient } from "viem";
import type { Network } from "../../config/types.ts";
import { rpcUrlsOf } from "../rpcRotation/registry.ts";
import { evmTransport } from "./transport.ts";

const clients = new Map<string, PublicClient>();

/**
 * One viem public client per EVM network and its RPC URLs, reused process-wide. HTTP is
 * preferred for request/response reads; a ws-only configuration still works.
 */
export function evmClient(network: Network, timeoutMs = 10_000, options: { batch?: boolean; lane?: number } = {}): PublicClient {
  if (network.type !== "evm" || !network.rpcUrl) throw new Error(`network ${network.shortName} has no EVM RPC`);
  const batch = options.batch === true;
  // Batching clients of separate lanes send separate requests for calls made at the same time.
  const urls = rpcUrlsOf(network);
  const key = `${network.id}|${urls.join(",")}|${timeoutMs}|${batch}|${options.lane ?? 0}`;
  let client = clients.get(key);
  if (!client) {
    // `batch`: the calls made together go in one HTTP request, so one node answers them all
    // (behind a provider's URL, separate requests may reach nodes at different heights).
    // Several URLs: viem's fallback over those the network's rotation keeps in use.
    const transport = evmTransport(network, urls, { timeoutMs, batch });
    client = createPublicClient({ transport }) as PublicClient;
    clients.set(key, client);
  }
  return client;
}

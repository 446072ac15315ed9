import { Connection, type Commitment } from "@solana/web3.js";
import type { Network } from "../../config/types.ts";

const connections = new Map<string, Connection>();

/**
 * One web3.js `Connection` per Solana network, commitment and timeout, reused
 * process-wide. HTTP for requests; the websocket (`WS_URL_…`, else web3.js's default
 * of the RPC port + 1) only for the subscriber's notifications.
 */
export function solanaConnection(network: Network, commitment: Commitment = "confirmed", timeoutMs = 10_000): Connection {
  if (network.type !== "solana" || !network.rpcUrl) throw new Error(`network ${network.shortName} has no Solana RPC`);
  const key = `${network.id}|${network.rpcUrl}|${commitment}|${timeoutMs}`;
  let connection = connections.get(key);
  if (!connection) {
    connection = new Connection(network.rpcUrl, {
      commitment,
      wsEndpoint: network.wsUrl ?? undefined,
      disableRetryOnRateLimit: true,
      fetch: Object.assign((input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) }), { preconnect: fetch.preconnect }),
    });
    connections.set(key, connection);
  }
  return connection;
}

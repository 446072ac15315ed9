import type { Commitment, Connection } from "@solana/web3.js";
import type { Network } from "../../config/types.ts";
import { rotationFor, rpcUrlsOf } from "../rpcRotation/registry.ts";
import type { ProviderRotation, RotationLimits } from "../rpcRotation/providerRotation.ts";
import { BatchingConnection } from "./batchingConnection.ts";
import { failoverConnection } from "./failoverConnection.ts";

const connections = new Map<string, Connection>();

function single(network: Network, url: string, commitment: Commitment, timeoutMs: number): Connection {
  return new BatchingConnection(url, {
    commitment,
    // The socket belongs to the first provider; a second provider's socket is not derived from its RPC port.
    wsEndpoint: url === network.rpcUrl ? (network.wsUrl ?? undefined) : undefined,
    disableRetryOnRateLimit: true,
    fetch: Object.assign((input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) }), { preconnect: fetch.preconnect }),
  });
}

/**
 * How a Solana network's providers are judged: the litesvm devchain is probed often so a
 * dropped node shows within a test's patience; a lag of about a minute of slots is too far
 * behind to credit a payment in time.
 */
const solanaRotationLimits = (network: Network): RotationLimits =>
  network.isLocal ? { intervalMs: 250, maxLag: 150n, stuckMs: 2_000 } : { intervalMs: 5_000, maxLag: 150n, stuckMs: 30_000 };

/** The rotation over a Solana network's providers: probed with the genesis hash and the confirmed slot. */
export function solanaRotation(network: Network, urls: string[]): ProviderRotation {
  return rotationFor(network, urls, solanaRotationLimits(network), (url) => {
    const probe = single(network, url, "confirmed", 5_000);
    return async () => {
      const [genesis, slot] = await Promise.all([probe.getGenesisHash(), probe.getSlot("confirmed")]);
      // A network's chain id is its genesis hash or the CAIP-2 reference (its first 32 characters).
      return { chainId: genesis.startsWith(network.chainId) ? network.chainId : genesis, head: BigInt(slot) };
    };
  });
}

/**
 * One web3.js `Connection` per Solana network, commitment and timeout, reused
 * process-wide. HTTP for requests; the websocket (`WS_URL_…`, else web3.js's default
 * of the RPC port + 1) only for the subscriber's notifications. Several RPC URLs: calls
 * fail over between the providers the network's rotation keeps in use.
 */
export function solanaConnection(network: Network, commitment: Commitment = "confirmed", timeoutMs = 10_000): Connection {
  if (network.type !== "solana" || !network.rpcUrl) throw new Error(`network ${network.shortName} has no Solana RPC`);
  const urls = rpcUrlsOf(network);
  const key = `${network.id}|${urls.join(",")}|${commitment}|${timeoutMs}`;
  let connection = connections.get(key);
  if (!connection) {
    const each = urls.map((url) => single(network, url, commitment, timeoutMs));
    connection = each.length === 1 ? each[0]! : failoverConnection(each, solanaRotation(network, urls));
    connections.set(key, connection);
  }
  return connection;
}

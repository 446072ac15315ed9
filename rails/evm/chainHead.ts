import { Connection } from "@solana/web3.js";
import type { Network } from "../../config/types.ts";
import { evmClient } from "./client.ts";

const solanaConnections = new Map<string, Connection>();

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout>;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The chain's current head: latest block number (EVM) or confirmed slot (Solana). */
export async function getChainHead(network: Network, timeoutMs: number): Promise<bigint> {
  if (!network.rpcUrl) throw new Error(`network ${network.shortName} has no RPC URL`);
  if (network.type === "evm") {
    return withTimeout(evmClient(network, timeoutMs).getBlockNumber({ cacheTime: 0 }), timeoutMs, `${network.shortName} head`);
  }
  let connection = solanaConnections.get(network.rpcUrl);
  if (!connection) solanaConnections.set(network.rpcUrl, (connection = new Connection(network.rpcUrl, "confirmed")));
  return BigInt(await withTimeout(connection.getSlot("confirmed"), timeoutMs, `${network.shortName} slot`));
}

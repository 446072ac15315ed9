import type { Connection } from "@solana/web3.js";
import type { ProviderRotation } from "../rpcRotation/providerRotation.ts";

/**
 * One `Connection` over several providers: web3.js (and helius-sdk) have no failover. A
 * call goes to the first provider the rotation keeps in use and, when it fails, to the next
 * in use; a provider out of rotation (wrong genesis, stuck, lagging) is never asked while
 * another is in use, since its "not found" would be believed. Subscriptions (`on…`,
 * `remove…`) and private members stay on the first connection, which owns the socket.
 */
export function failoverConnection(connections: Connection[], rotation: ProviderRotation): Connection {
  const [first] = connections;
  if (!first) throw new Error("failoverConnection: no connection");
  if (connections.length === 1) return first;
  const call = async (method: string, args: unknown[]) => {
    let lastError: unknown = new Error("no Solana RPC provider in rotation");
    for (let i = 0; i < connections.length; i++) {
      if (!rotation.usable(i)) continue;
      const connection = connections[i] as unknown as Record<string, (...a: unknown[]) => unknown>;
      try {
        return await connection[method]!(...args);
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  };
  return new Proxy(first, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== "function") return value;
      if (typeof prop !== "string" || prop.startsWith("_") || /^(on|remove)[A-Z]/.test(prop)) return value.bind(target);
      return (...args: unknown[]) => call(prop, args);
    },
  });
}

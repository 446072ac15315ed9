import type { Config } from "./index.ts";
import type { Network } from "./types.ts";

export type IndexedNetwork = Network & { rpcUrl: string; startBlock: number | "latest" };

/**
 * The EVM networks the indexer follows: enabled, with an RPC URL. Start blocks come
 * from `START_BLOCK_<chainId>`; local chains start at 0; a real chain without one
 * starts at "latest" (pin it in production so restarts never skip history).
 */
export function indexedEvmNetworks(config: Config, env: Record<string, string | undefined>): IndexedNetwork[] {
  return config.networks
    .filter((n): n is Network & { rpcUrl: string } => n.type === "evm" && n.enabled && n.rpcUrl !== null)
    .map((n) => {
      const raw = env[`START_BLOCK_${n.chainId}`]?.trim();
      let startBlock: number | "latest" = n.isLocal ? 0 : "latest";
      if (raw) {
        if (!/^\d+$/.test(raw)) throw new Error(`START_BLOCK_${n.chainId}: must be a block number`);
        startBlock = Number(raw);
      }
      return { ...n, startBlock };
    });
}

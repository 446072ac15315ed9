import { ConfigError } from "./configError.ts";
import type { Config } from "./configType.ts";
import type { Network } from "./types.ts";

/** The schema one chain's Ponder writes to: one Ponder per indexed chain, `INDEXER_SCHEMA`_<chainId>. */
export const chainSchema = (schema: string, chainId: string) => `${schema}_${chainId}`;

export type IndexedNetwork = Network & { rpcUrl: string; startBlock: number | "latest" };

/**
 * The networks the indexer follows, of the types it indexes (`config.indexer.networkTypes`):
 * enabled, with an RPC URL. Start blocks come from `START_BLOCK_<chainId>`; local chains
 * start at 0; a real chain without one starts at "latest" outside production only. Ponder resolves "latest" again at each
 * start while its build id stays the same: a restart (Ponder exits when its database
 * drops) rolled back its unfinalised rows and never read those blocks again — payments
 * completed there reverted, and money paid while it was down was never seen.
 */
export function indexedEvmNetworks(config: Config, env: Record<string, string | undefined>): IndexedNetwork[] {
  return config.networks
    .filter((n): n is Network & { rpcUrl: string } => config.indexer.networkTypes.includes(n.type) && n.enabled && n.rpcUrl !== null)
    // A Ponder the indexer role started indexes one chain (indexer/supervise.ts).
    .filter((n) => config.indexer.chainId === null || n.chainId === config.indexer.chainId)
    .map((n) => {
      const raw = env[`START_BLOCK_${n.chainId}`]?.trim();
      let startBlock: number | "latest" = n.isLocal ? 0 : "latest";
      if (raw) {
        if (!/^\d+$/.test(raw)) throw new ConfigError(`START_BLOCK_${n.chainId}: must be a block number`);
        startBlock = Number(raw);
      } else if (startBlock === "latest" && config.appEnv === "production") {
        throw new ConfigError(
          `START_BLOCK_${n.chainId}: required in production for ${n.name} (a block before the first payment, e.g. the chain's head when you deploy); without it each restart of the indexer would skip blocks`,
        );
      }
      return { ...n, startBlock };
    });
}

import type { RailPlugin } from "../registration.ts";
import { evmNetworkType } from "./networkType.ts";

/**
 * The EVM network type as the service registers it (`rails/plugins.ts`): its addresses
 * and built-in networks (`networkType.ts`). Its settings, its
 * indexer role and its evidence tables are still the service's own (the indexer is Ponder's
 * root, `indexer/`): see docs/decisions/network-plugins.md.
 */
export const evmPlugin: RailPlugin = {
  name: "evm",
  networkType: evmNetworkType,
  // Loaded on use (`RailPlugin.ports`): an import here would load db/ and viem into Ponder's config.
  ports: { network: () => (require("./index.ts") as typeof import("./index.ts")).evmRails },
};

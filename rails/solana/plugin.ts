import type { RailPlugin } from "../registration.ts";
import { solanaNetworkType } from "./networkType.ts";
import { solanaRole } from "./role.ts";
import { solanaConfigSection } from "./settings/config.ts";
import * as tables from "./tables.ts";

/** The Solana network type as the service registers it (`rails/plugins.ts`): its spec, its settings (`config.solana`), its tables and its subscriber role. */
export const solanaPlugin: RailPlugin = {
  name: "solana",
  networkType: solanaNetworkType,
  config: solanaConfigSection,
  tables,
  role: solanaRole,
  // Loaded on use (`RailPlugin.ports`): an import here would load db/ into Ponder's config.
  ports: { network: () => (require("./index.ts") as typeof import("./index.ts")).solanaRails },
};

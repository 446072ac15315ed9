import { ConfigError } from "../../config/index.ts";
import type { RailRole } from "../registration.ts";

/** The local bridge's relayer (`bun scripts/role.ts relayer`): the sandbox's bridge between its chains; no `/metrics` of its own. */
export const relayerRole: RailRole = {
  name: "relayer",
  metricsPort: () => 0,
  async start({ config, logger, databaseUrl }) {
    if (!config.bridge.local?.relayerPrivateKey) throw new ConfigError("BRIDGE_LOCAL_RELAYER_KEY: required to run the local bridge's relayer");
    // Imported on use: the declaration stays light (Ponder's config loads it, and must not load db/).
    const [{ startLocalRelayer }, { createDb }, { runMigrations }, { rolePoolProbe }] = await Promise.all([
      import("./local/index.ts"),
      import("../../db/client.ts"),
      import("../../db/migrate.ts"),
      import("../../db/probedPool.ts"),
    ]);
    await runMigrations(databaseUrl);
    const handle = createDb(databaseUrl, { max: 4, probe: rolePoolProbe(config.databaseProbeTimeoutMs, logger) });
    const relayer = startLocalRelayer({ config, db: handle.db, logger, databaseUrl });
    return {
      async stop() {
        await relayer.stop();
        await handle.close();
      },
    };
  },
};

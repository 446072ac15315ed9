import type { RailRole } from "../registration.ts";
import { solanaConfigSection } from "./settings/config.ts";

/** The Solana rail's subscriber (`bun scripts/role.ts solana`): one per deployment, like the indexer; its libraries load only here. */
export const solanaRole: RailRole = {
  name: solanaConfigSection.role!,
  metricsPort: (config) => config.operator.metricsPorts.solana,
  async start({ config, logger, databaseUrl }) {
    // Imported on use: the declaration stays light (Ponder's config loads it, and must not load db/).
    const [{ startSolanaSubscriber }, { INDEXED_CHANNEL }, { createDb }, { runMigrations }, { rolePoolProbe }] = await Promise.all([
      import("./ingest/startSolanaSubscriber.ts"),
      import("../index.ts"),
      import("../../db/client.ts"),
      import("../../db/migrate.ts"),
      import("../../db/probedPool.ts"),
    ]);
    await runMigrations(databaseUrl);
    const handle = createDb(databaseUrl, { max: Math.min(config.databasePoolSize, 10), probe: rolePoolProbe(config.databaseProbeTimeoutMs, logger) });
    const subscriber = startSolanaSubscriber({ config, db: handle.db, logger, channel: INDEXED_CHANNEL });
    return {
      async stop() {
        await subscriber.stop();
        await handle.close();
      },
    };
  },
};

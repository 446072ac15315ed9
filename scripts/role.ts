/**
 * Runs one role of the service on its own: `bun scripts/role.ts api|worker|indexer|relayer|<a rail's role>`
 * (`relayer`: the local bridge's relayer, the sandbox's bridge between its chains; a rail's
 * role, as the Solana subscriber, is declared by its plugin, registered in `rails/plugins.ts`).
 * Production runs each role from the environment (DATABASE_URL required) and scales
 * them independently; `npm start` runs all of them for one machine.
 */
import { loadConfigOrExit } from "../plugins/config.ts";
import { foreignSecrets, ROLES } from "../plugins/roles.ts";
import { ConfigError, type Role } from "../config/index.ts";
import { createLogger } from "../config/logger.ts";
import { createDb } from "../db/client.ts";
import { rolePoolProbe } from "../db/probedPool.ts";
import { runMigrations } from "../db/migrate.ts";
import { exitWithParent, onShutdown } from "./lib/onShutdown.ts";
import { startRoleMetrics } from "./lib/roleMetrics.ts";
import { railRole } from "../plugins/index.ts";

const role = process.argv[2] as Role;
if (!ROLES.includes(role)) {
  console.error(`usage: bun scripts/role.ts ${ROLES.join("|")}`);
  process.exit(2);
}
// The secrets another role reads are dropped before anything reads the environment, and from
// it (Ponder and every child inherit what is left): the API never holds the operator's key or
// the Solana seed, even where a shared environment carries them (config/roles.ts).
const ignoredSecrets = foreignSecrets(process.env, role);
for (const name of ignoredSecrets) delete process.env[name];
process.env.STABLEPAY_ROLE = role;
const config = loadConfigOrExit(process.env, role);
const databaseUrl = config.databaseUrl;
if (!databaseUrl) {
  console.error("DATABASE_URL: required to run a single role (npm start provides an embedded database)");
  process.exit(1);
}
function stopWith(stop: () => Promise<void>) {
  onShutdown(stop);
  if (process.env.STABLEPAY_SUPERVISED === "1") exitWithParent(stop);
}

const logger = createLogger({ level: config.logLevel, name: role });
if (ignoredSecrets.length > 0) logger.warn({ ignored: ignoredSecrets }, `ignored ${ignoredSecrets.join(", ")}: another role's secret (the ${role} role never reads it; remove it from this role's environment)`);
// Each role imports only its own code: the API never loads the workers, the Solana
// subscriber or the relayer (and their libraries), which was most of its memory.
const stopMetrics = startRoleMetrics(role, config, logger, databaseUrl);

if (role === "api") {
  const [{ startApiServer }, { createPrompts }, { openAllQueues }] = await Promise.all([import("../api/server.ts"), import("../jobs/prompts.ts"), import("../jobs/queues.ts")]);
  await runMigrations(databaseUrl, { viewsSchema: config.indexer.viewsSchema, networks: config.networks });
  // The API's producers fail fast: a request never waits for Redis (jobs/queues.ts).
  const dashboardQueues = config.operator.token && config.operator.queueDashboard !== "off" ? openAllQueues(config, { failFast: true }) : [];
  const server = await startApiServer(config, logger, databaseUrl, createPrompts(config, { failFast: true }), dashboardQueues);
  stopWith(server.stop);
} else if (role === "worker") {
  const { startWorkers } = await import("../jobs/worker.ts");
  await runMigrations(databaseUrl, { viewsSchema: config.indexer.viewsSchema, networks: config.networks });
  const handle = createDb(databaseUrl, { max: config.databasePoolSize, probe: rolePoolProbe(config.databaseProbeTimeoutMs, logger) });
  const workers = await startWorkers({ config, db: handle.db, logger, databaseUrl });
  stopWith(async () => {
    await workers.close();
    await stopMetrics();
    await handle.close();
  });
} else if (railRole(role)) {
  // A rail's own process (the Solana subscriber, the local bridge's relayer): what it starts is the rail's (`rails/plugins.ts`).
  const rail = await railRole(role)!
    .start({ config, logger, databaseUrl })
    .catch((error) => {
      if (!(error instanceof ConfigError)) throw error;
      console.error(error.message);
      process.exit(1);
    });
  stopWith(async () => {
    await rail.stop();
    await stopMetrics();
  });
} else {
  // Ponder exits when its database goes away: the role starts it again rather than dying with it.
  // What Ponder's config would refuse at each start is refused here, once, rather than restarted forever.
  const [{ superviseIndexers }, { indexedEvmNetworks }] = await Promise.all([import("../indexer/indexers.ts"), import("../config/indexer.ts")]);
  let chainIds: string[];
  try {
    chainIds = indexedEvmNetworks(config, process.env).map((n) => n.chainId);
  } catch (error) {
    console.error(`Invalid configuration: ${(error as Error).message}`);
    process.exit(1);
  }
  // One Ponder per EVM chain: one chain's dead node stops only that chain's ingest.
  const indexer = superviseIndexers(config, databaseUrl, { chainIds, port: config.indexer.port, logLevel: config.logLevel }, logger);
  stopWith(async () => {
    await indexer.stop();
    await stopMetrics();
  });
}

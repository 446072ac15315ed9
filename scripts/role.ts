/**
 * Runs one role of the service on its own: `bun scripts/role.ts api|worker|indexer`.
 * Production runs each role from the environment (DATABASE_URL required) and scales
 * them independently; `npm start` runs all of them for one machine.
 */
import { startApiServer } from "../api/server.ts";
import { loadConfigOrExit } from "../config/index.ts";
import { createLogger } from "../config/logger.ts";
import { createDb } from "../db/client.ts";
import { runMigrations } from "../db/migrate.ts";
import { spawnIndexer } from "../indexer/run.ts";
import { createPrompts } from "../jobs/prompts.ts";
import { startWorkers } from "../jobs/worker.ts";
import { exitWithParent, onShutdown } from "./lib/onShutdown.ts";
import { startRoleMetrics } from "./lib/roleMetrics.ts";
import { openAllQueues } from "../jobs/queues.ts";

const role = process.argv[2];
if (role !== "api" && role !== "worker" && role !== "indexer") {
  console.error("usage: bun scripts/role.ts api|worker|indexer");
  process.exit(2);
}
const config = loadConfigOrExit();
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
const stopMetrics = startRoleMetrics(role, config, logger, databaseUrl);

if (role === "api") {
  await runMigrations(databaseUrl, { viewsSchema: config.indexer.viewsSchema, networks: config.networks });
  const dashboardQueues = config.operator.token && config.operator.queueDashboard !== "off" ? openAllQueues(config) : [];
  const server = await startApiServer(config, logger, databaseUrl, createPrompts(config), dashboardQueues);
  stopWith(server.stop);
} else if (role === "worker") {
  await runMigrations(databaseUrl, { viewsSchema: config.indexer.viewsSchema, networks: config.networks });
  const handle = createDb(databaseUrl, { max: config.databasePoolSize });
  const workers = await startWorkers({ config, db: handle.db, logger, databaseUrl });
  stopWith(async () => {
    await workers.close();
    await stopMetrics();
    await handle.close();
  });
} else {
  const child = spawnIndexer(config, databaseUrl, { port: config.indexer.port, logLevel: config.logLevel });
  child.on("exit", (code) => process.exit(code ?? 1));
  stopWith(async () => {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    await stopMetrics();
  });
}

/**
 * `npm start`: the whole stack on one machine.
 * - With no configuration, a complete local sandbox: two anvil chains with test
 *   stablecoins, embedded PostgreSQL (unless DATABASE_URL is set), Redis (or a
 *   private redis-server), a seeded sandbox merchant, then indexer, workers and API.
 *   Writes `.data/dev-stack.json` for scripts and tutorials.
 * - `--prod` (`npm run start:prod`): every role from the environment, run from the
 *   bundle it builds first (`dist/`, `npm run build`); no anvil, DATABASE_URL required.
 */
import { buildConfig } from "../plugins/config.ts";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { sql } from "drizzle-orm";
import { privateKeyToAccount } from "viem/accounts";
import { freePort } from "@stablepay/devchain/freePort";
import { ConfigError, localBaseUrl, setVariables, type Config, type Role } from "../config/index.ts";
import { chainSchema } from "../config/indexer.ts";
import { createLogger } from "../config/logger.ts";
import { projectRoot as root } from "../config/projectRoot.ts";
import { createDb } from "../db/client.ts";
import { startEmbeddedPostgres } from "../db/embeddedPostgres.ts";
import { runMigrations } from "../db/migrate.ts";
import { spawnRole, stopChildren, type Child } from "./lib/children.ts";
import { startLocalChains } from "./lib/sandboxChains.ts";
import { ingests, networksFollowedBy, stockedMethods } from "../rails/index.ts";
import { railRoles } from "../plugins/index.ts";
import { publicAddresses } from "../plugins/roles.ts";
import { buildRoles } from "./build.ts";
import { onShutdown } from "./lib/onShutdown.ts";
import { roleEnv } from "./lib/roleEnv.ts";
import { sandboxEnv } from "./lib/sandboxEnv.ts";
import { ensureRedis } from "./lib/redis.ts";
import { seedSandbox, type SandboxMerchant } from "./lib/seedSandbox.ts";
import { sandboxDashboardLogin } from "./lib/sandboxDashboardLogin.ts";

const prod = process.argv.includes("--prod");
const cleanups: Array<() => Promise<void> | void> = [];
const children: Child[] = [];

async function shutdown(): Promise<void> {
  await stopChildren(children);
  for (const cleanup of cleanups.reverse()) await cleanup();
}

function fail(message: string): never {
  console.error(message);
  void shutdown().finally(() => process.exit(1));
  throw new Error(message);
}

function config(env: Record<string, string | undefined>): Config {
  try {
    return buildConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) fail(`Invalid configuration: ${error.message}`);
    throw error;
  }
}

/** Starts each role with only its own secrets (and the operators' addresses from `cfg`): the API never gets a key that moves money. */
function startRoles(env: Record<string, string | undefined>, cfg: Config, roles: Role[], script = join(root, "scripts/role.ts")) {
  const bun = process.execPath;
  const addresses = publicAddresses(cfg);
  for (const role of roles) {
    const child = spawnRole(role, bun, [script, role], { ...roleEnv(env, role, addresses), STABLEPAY_SUPERVISED: "1" }, root);
    children.push(child);
    void child.exited.then((code) => {
      if (!stopping) fail(`${role} exited unexpectedly (code ${code}); stopping the stack.`);
    });
  }
}

/** Waits for the API's health from this machine (not through PUBLIC_BASE_URL: a tunnel or proxy may not be up yet). */
async function waitForApi(cfg: Config, timeoutMs = 60_000): Promise<void> {
  const baseUrl = localBaseUrl(cfg.http.host, cfg.http.port);
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if ((await fetch(`${baseUrl}/api/health`)).ok) return;
    } catch {}
    await Bun.sleep(250);
  }
  fail(`API did not become healthy at ${baseUrl} within ${timeoutMs / 1000}s`);
}

/** Where each role serves /metrics (behind the operator token). */
function metricsUrls(cfg: Config) {
  const host = cfg.operator.metricsHost === "0.0.0.0" ? "127.0.0.1" : cfg.operator.metricsHost;
  return {
    api: `${cfg.http.publicBaseUrl}/metrics`,
    worker: `http://${host}:${cfg.operator.metricsPorts.worker}/metrics`,
    indexer: `http://${host}:${cfg.operator.metricsPorts.indexer}/metrics`,
  };
}

let stopping = false;
onShutdown(async () => {
  stopping = true;
  await shutdown();
});

if (prod) {
  const env = { ...process.env, APP_ENV: process.env.APP_ENV ?? "production" };
  const cfg = config(env);
  if (!cfg.databaseUrl) fail("DATABASE_URL: required for a production start");
  await runMigrations(cfg.databaseUrl, { viewsSchema: cfg.indexer.viewsSchema, networks: cfg.networks });
  // A rail's role (the Solana subscriber) exits when it has no network to follow: started
  // anyway, its exit would stop the whole stack.
  const rails = railRoles().filter((role) => networksFollowedBy(cfg, role).length > 0);
  startRoles(env, cfg, ["indexer", ...rails, "worker", "api", ...(cfg.bridge.local?.relayerPrivateKey ? (["relayer"] as const) : [])], await buildRoles());
  await waitForApi(cfg);
  console.log(`Stablecoin payments API: ${cfg.http.publicBaseUrl}/api/v1  (docs: ${cfg.http.publicBaseUrl}/docs)`);
} else {
  if (process.env.APP_ENV === "production") fail("npm start runs the local sandbox; use `npm run start:prod` for production.");
  const base = config(process.env); // validate what the operator set before starting anything
  const dataDir = resolve(root, base.dataDir);
  const devStackFile = join(dataDir, "dev-stack.json");
  mkdirSync(dataDir, { recursive: true });

  let databaseUrl = base.databaseUrl;
  if (!databaseUrl) {
    const pg = await startEmbeddedPostgres({ dataDir: join(dataDir, "postgres"), port: await freePort() }).catch((error: Error) => fail(error.message));
    cleanups.push(pg.stop);
    databaseUrl = pg.url;
  }
  const redis = await ensureRedis(base.redis.url, await freePort()).catch((error: Error) => fail(error.message));
  cleanups.push(redis.stop);

  console.log("Starting local chains and deploying test stablecoins…");
  const chains = await startLocalChains();
  cleanups.push(chains.stop);
  const networksFile = join(dataDir, "networks.local.json");
  writeFileSync(networksFile, JSON.stringify({ networks: chains.networks }, null, 2));

  const env = sandboxEnv(setVariables(process.env), { DATABASE_URL: databaseUrl, REDIS_URL: redis.url, NETWORKS_FILE: networksFile }, chains.env);
  const cfg = config(env);
  await runMigrations(databaseUrl, { viewsSchema: cfg.indexer.viewsSchema, networks: cfg.networks });

  const handle = createDb(databaseUrl, { max: 2 });
  // Fresh chains every start: Ponder's sync cache and indexed rows of the old ones are stale.
  await handle.db.execute(sql`drop schema if exists ponder_sync cascade`);
  await handle.db.execute(sql`drop schema if exists ${sql.identifier(cfg.indexer.schema)} cascade`);
  await handle.db.execute(sql`drop schema if exists ${sql.identifier(cfg.indexer.viewsSchema)} cascade`);
  // One Ponder per indexed chain, each in a schema of its own (indexer/run.ts).
  for (const n of cfg.networks.filter((n) => n.isLocal && cfg.indexer.networkTypes.includes(n.type))) {
    await handle.db.execute(sql`drop schema if exists ${sql.identifier(chainSchema(cfg.indexer.schema, n.chainId))} cascade`);
  }
  // The local bridge's books describe the previous chains' deposits and transfers: gone with them.
  await handle.db.execute(sql`truncate local_bridge_transfers, local_bridge_deposits, local_bridge_requests, local_bridge_factories`);
  // So does what ingest noted per chain (the same chain ids start again from block 0): a rollback
  // noted at block N held every answer of the new chain until it passed N, an old stall stretched
  // expiries, and dispatch's cursor sat past the new chain's blocks.
  const localChainIds = cfg.networks.filter((n) => n.isLocal).map((n) => n.chainId);
  for (const table of ["indexed_removals", "ingest_watch", "dispatch_cursors", "indexed_sources"]) {
    await handle.db.execute(sql`delete from ${sql.identifier(table)} where chain_id in (${sql.join(localChainIds.map((id) => sql`${id}`), sql`, `)})`);
  }
  // And each ingest's own notes (the Solana subscriber's heads: the local Solana chain starts at slot 0 under the same genesis hash).
  for (const ingest of ingests()) await ingest.forgetChains?.(handle.db, localChainIds);
  let previous: Partial<SandboxMerchant> | undefined;
  try {
    previous = JSON.parse(readFileSync(devStackFile, "utf8"));
  } catch {}
  const localNetworks = cfg.networks.filter((n) => n.isLocal);
  const merchant = await seedSandbox(handle.db, cfg.secrets, localNetworks, chains.merchantWallets, previous);
  const dashboardLogin = await sandboxDashboardLogin(handle.db, merchant.merchantId);
  // The sandbox starts stocked (Solana's deposit addresses derived): the first create finds one.
  const stocking = { config: cfg, db: handle.db, logger: createLogger({ level: "warn", name: "start" }) };
  for (const { method } of stockedMethods(cfg)) await method.replenish(stocking);
  await handle.close();

  startRoles(env, cfg, ["indexer", ...railRoles().filter((role) => networksFollowedBy(cfg, role).length > 0), "worker", "api", ...(cfg.bridge.local?.relayerPrivateKey ? (["relayer"] as const) : [])]);
  await waitForApi(cfg);

  const devStack = {
    baseUrl: cfg.http.publicBaseUrl,
    databaseUrl,
    redisUrl: redis.url,
    publicKey: merchant.publicKey,
    apiKey: merchant.apiKey,
    apiSecret: merchant.apiSecret,
    chains: chains.networks.map((n) => ({
      shortName: n.shortName,
      type: n.type,
      // EVM chain ids are numbers; a Solana chain id is its genesis hash.
      chainId: /^\d+$/.test(n.chainId) ? Number(n.chainId) : n.chainId,
      rpcUrl: n.rpcUrl,
      wsUrl: n.wsUrl,
      tokens: n.tokens.map((t) => ({ symbol: t.symbol, address: t.address, ...(t.tokenProgram ? { mint: t.address, tokenProgram: t.tokenProgram } : {}), decimals: t.decimals })),
      settlementContract: n.settlementContract ?? null,
      forwarderFactory: n.forwarderFactory ?? null,
    })),
    // Each rail's funded customer (customerPrivateKey, customerSolanaSecretKey, …).
    ...chains.devStack,
    merchantWallets: merchant.merchantWallets,
    webhookSecret: merchant.webhookSecret,
    bridge: cfg.bridge.local
      ? { adapter: "local", relayerAddress: cfg.bridge.local.relayerPrivateKey && privateKeyToAccount(cfg.bridge.local.relayerPrivateKey).address, feeBps: cfg.bridge.local.feeBps }
      : null,
    operatorToken: cfg.operator.token,
    metrics: metricsUrls(cfg),
    queueDashboard: `${cfg.http.publicBaseUrl}/admin/queues`,
    dashboard: { url: `${cfg.http.publicBaseUrl}/dashboard`, ...dashboardLogin },
  };
  writeFileSync(devStackFile, JSON.stringify(devStack, null, 2));
  console.log(
    [
      "",
      "Sandbox is running.",
      `  API:         ${cfg.http.publicBaseUrl}/api/v1   (docs: ${cfg.http.publicBaseUrl}/docs)`,
      `  Public key:  ${merchant.publicKey}`,
      `  API key:     ${merchant.apiKey}`,
      `  API secret:  ${merchant.apiSecret}`,
      `  Webhook secret (callbackUrl): ${merchant.webhookSecret}`,
      `  Dashboard:   ${devStack.dashboard.url}   (sign in as ${dashboardLogin.email} / ${dashboardLogin.password})`,
      `  Operator token: ${cfg.operator.token}   (metrics: ${Object.values(devStack.metrics).join(", ")}; queues: ${devStack.queueDashboard})`,
      ...chains.networks.map((n) => `  Chain:       ${n.shortName} (${n.chainId}) ${n.rpcUrl}`),
      ...(cfg.bridge.local ? ["  Bridge:      local relayer between the chains (pay on anvil-2, settle on anvil)"] : []),
      `  Details:     ${devStackFile}`,
      "Press Ctrl-C to stop.",
      "",
    ].join("\n"),
  );
}

import { randomBytes } from "node:crypto";
import { spawn, type Subprocess } from "bun";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Config, type FileNetworkInput } from "../config/index.ts";
import { projectRoot } from "../config/projectRoot.ts";
import { createDb, type Db } from "../db/client.ts";
import { buildRoles } from "../scripts/build.ts";
import { roleEnv } from "../scripts/lib/roleEnv.ts";
import { createLogger } from "../config/logger.ts";
import { stockedMethods } from "../rails/index.ts";
import { issueCredential } from "../db/credentials.ts";
import { createMerchant } from "../db/merchants.ts";
import { setSettlementWallet } from "../db/settlementWallets.ts";
import { GENEROUS_LIMITS } from "./generousLimits.ts";
import { freePort } from "@stablepay/devchain/freePort";
import { createTestDatabase } from "./database.ts";
import { createTestRedis } from "./redis.ts";
import { anvilNetwork } from "./fixtures.ts";
import { buildConfig } from "../plugins/config.ts";
import { publicAddresses } from "../plugins/roles.ts";

/**
 * What the benchmarks (and the bundle's test) run against: a fresh migrated database on the machine's Postgres, a
 * Redis key prefix of its own, and a networks file with one EVM network whose contracts are
 * configured (creation signs and derives addresses without calling the chain) and whose RPC
 * answers nothing. Roles run as production runs them: from the bundle (`npm run build`,
 * `bun dist/role.js <role>`; `roleScript` names another build), each its own process.
 */
export async function roleStack(options: { env?: Record<string, string>; roleScript?: string; /** More networks, after the EVM one. */ networks?: FileNetworkInput[] } = {}) {
  const roleScript = options.roleScript ?? (await buildRoles());
  const database = await createTestDatabase();
  const redis = createTestRedis();
  const dir = mkdtempSync(join(tmpdir(), "stablepay-stack-"));
  const networksFile = join(dir, "networks.json");
  writeFileSync(
    networksFile,
    JSON.stringify({
      networks: [
        anvilNetwork("http://127.0.0.1:1", { settlementContract: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0", forwarderFactory: "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9" }),
        ...(options.networks ?? []),
      ],
    }),
  );
  const env: Record<string, string> = {
    APP_ENV: "test",
    DATABASE_URL: database.url,
    REDIS_URL: redis.url,
    QUEUE_PREFIX: redis.prefix,
    NETWORKS_FILE: networksFile,
    OPERATOR_PRIVATE_KEY: `0x${"11".repeat(32)}`,
    INTENT_SIGNER_PRIVATE_KEY: `0x${"22".repeat(32)}`,
    SOLANA_DEPOSIT_SEED: randomBytes(32).toString("hex"),
    LOG_LEVEL: "info",
    // Benchmarks and fault scenarios send many requests from one key and address.
    ...GENEROUS_LIMITS,
    ...options.env,
  };
  const config: Config = buildConfig(env);
  const handle = createDb(database.url, { max: 10 });
  const db: Db = handle.db;
  // Stocked as `npm start` stocks the sandbox (Solana's deposit addresses): the API may start before any worker.
  for (const { method } of stockedMethods(config)) await method.replenish({ config, db, logger: createLogger({ level: "silent" }) });
  const network = config.networks.find((n) => n.shortName === "anvil")!;
  const processes: Subprocess[] = [];

  async function seedMerchant(name = "Stack merchant") {
    const merchant = await createMerchant(db, { name });
    const [publicKey, secret] = await Promise.all([issueCredential(db, merchant.id, "public", "test"), issueCredential(db, merchant.id, "secret", "test")]);
    await setSettlementWallet(db, merchant.id, network.id, "0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    return { id: merchant.id, publicKey: publicKey.key, apiKey: secret.key, apiSecret: secret.secret! };
  }

  /** Starts a role; the API answers on the returned URL once it is ready. Logs go nowhere (as to a collector). */
  async function startRole(role: "api" | "worker" | "solana", extraEnv: Record<string, string> = {}) {
    const port = await freePort();
    const metricsPort = await freePort();
    // BENCH_PROFILE=<dir>: each role writes a CPU profile (markdown) there when it stops.
    const profile = process.env.BENCH_PROFILE ? ["--cpu-prof-md", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
    const child = spawn(["bun", ...profile, roleScript, role], {
      cwd: projectRoot,
      // Each role its own secrets and the operators' addresses, as `npm run start:prod` starts them.
      env: {
        ...process.env,
        ...roleEnv(env, role, publicAddresses(config)),
        PORT: String(port),
        WORKER_METRICS_PORT: String(metricsPort),
        SOLANA_METRICS_PORT: String(metricsPort),
        ...extraEnv,
      },
      stdout: process.env.ROLE_STDOUT ? "inherit" : "ignore",
      stderr: "inherit",
    });
    processes.push(child);
    const url = `http://127.0.0.1:${port}`;
    if (role === "api") {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const ok = await fetch(`${url}/api/versions`).then((r) => r.ok).catch(() => false);
        if (ok) break;
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`api did not start (exit ${child.exitCode})`);
        await Bun.sleep(100);
      }
    } else {
      await Bun.sleep(3_000);
    }
    return { pid: child.pid, url, child };
  }

  return {
    config,
    db,
    env,
    network,
    databaseUrl: database.url,
    redis: redis.redis,
    seedMerchant,
    startRole,
    close: async () => {
      for (const p of processes) p.kill("SIGTERM");
      await Promise.all(processes.map((p) => Promise.race([p.exited, Bun.sleep(10_000).then(() => p.kill("SIGKILL"))])));
      await handle.close();
      await redis.cleanup();
      await database.drop();
    },
  };
}


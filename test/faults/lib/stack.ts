import { buildConfig } from "../../../plugins/config.ts";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { erc20Abi, getAddress, type Address, type Hex } from "viem";
import { type Config } from "../../../config/index.ts";
import { createDb, queryRows, type DbHandle } from "../../../db/client.ts";
import { issueCredential } from "../../../db/credentials.ts";
import { createMerchant } from "../../../db/merchants.ts";
import { setSettlementWallet } from "../../../db/settlementWallets.ts";
import { freePort } from "@stablepay/devchain/freePort";
import { privateKeyToAccount } from "viem/accounts";
import { customer, intentSignerKey, merchantWallet, operatorKey, startPaymentChain, type PaymentChain } from "../../../harness/paymentChain.ts";
import { GENEROUS_LIMITS } from "../../../harness/generousLimits.ts";
import { startPrivatePostgres, type PrivatePostgres } from "../../../harness/privatePostgres.ts";
import { startPrivateRedis, type PrivateRedis } from "../../../harness/privateRedis.ts";
import { faultBundle, roleProcess, type RoleProcess } from "./roleProcess.ts";

/**
 * One deployment for a fault scenario: an anvil with the contracts, a redis-server and an
 * embedded PostgreSQL of its own (the scenario may kill them; never the machine's shared
 * ones), and the API, worker and indexer roles as separate processes started as in
 * production (the bundle `npm run start:prod` runs, `faultBundle()`). A merchant with a settlement wallet is seeded.
 */
export type FaultStack = Awaited<ReturnType<typeof startFaultStack>>;

export async function startFaultStack(
  options: { requiredConfirmations?: number; finalityBlocks?: number | null; env?: Record<string, string>; /** null: blocks only when the test mines them. */ blockEveryMs?: number | null } = {},
) {
  const [roleScript, chain, redis, pg] = await Promise.all([
    faultBundle(),
    startPaymentChain({ requiredConfirmations: options.requiredConfirmations ?? 1, finalityBlocks: options.finalityBlocks }),
    startPrivateRedis(),
    startPrivatePostgres(),
  ]);
  // A live chain: a block every second besides those the transactions make (anvil mines on
  // arrival). A restarted Ponder resumes from its finalized checkpoint only as new blocks come.
  const blockEveryMs = options.blockEveryMs === undefined ? 1_000 : options.blockEveryMs;
  const blocks = blockEveryMs === null ? undefined : setInterval(() => void chain.mine(1).catch(() => {}), blockEveryMs);
  const [apiPort, indexerPort] = await Promise.all([freePort(), freePort()]);
  const env: Record<string, string> = {
    APP_ENV: "test",
    HOST: "127.0.0.1",
    PORT: String(apiPort),
    DATABASE_URL: pg.url,
    DATABASE_POOL_SIZE: "5",
    REDIS_URL: redis.url,
    QUEUE_PREFIX: "faults",
    NETWORKS_FILE: chain.networksFile,
    // One environment for every role, as a shared one in production: each role keeps only its own keys (config/roles.ts).
    OPERATOR_PRIVATE_KEY: operatorKey,
    OPERATOR_ADDRESS: privateKeyToAccount(operatorKey).address,
    INTENT_SIGNER_PRIVATE_KEY: intentSignerKey,
    INDEXER_PORT: String(indexerPort),
    WORKER_METRICS_PORT: "0",
    INDEXER_METRICS_PORT: "0",
    SOLANA_METRICS_PORT: "0",
    // Info: readiness is read from the roles' logs ("API listening", "workers started").
    LOG_LEVEL: "info",
    // Benchmarks and fault scenarios send many requests from one key and address.
    ...GENEROUS_LIMITS,
    ...options.env,
  };
  const config: Config = buildConfig(env);
  const roles = { api: roleProcess("api", env, roleScript), worker: roleProcess("worker", env, roleScript), indexer: roleProcess("indexer", env, roleScript) };
  const baseUrl = `http://127.0.0.1:${apiPort}`;

  // The API migrates first; then the merchant is seeded and the worker and indexer start.
  roles.api.start();
  await roles.api.waitForLog("API listening", 90_000);
  const handle: DbHandle = createDb(pg.url, { max: 4 });
  const network = config.networks.find((n) => n.shortName === chain.network.shortName)!;
  const merchantRow = await createMerchant(handle.db, { name: "Fault merchant" });
  const [publicKey, secret] = await Promise.all([issueCredential(handle.db, merchantRow.id, "public", "test"), issueCredential(handle.db, merchantRow.id, "secret", "test")]);
  await setSettlementWallet(handle.db, merchantRow.id, network.id, merchantWallet);
  const merchant = { id: merchantRow.id, publicKey: publicKey.key, apiKey: secret.key, apiSecret: secret.secret! };
  roles.worker.start();
  roles.indexer.start();
  await Promise.all([roles.worker.waitForLog("workers started", 90_000), waitForIndexer(indexerPort, roles.indexer)]);

  const usdc = getAddress(chain.tokens.find((t) => t.symbol === "USDC")!.address);

  /** A call to the API with a deadline: a hang is an answer too (status 0). */
  async function request(path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {}) {
    const started = performance.now();
    try {
      const response = await fetch(`${baseUrl}${path}`, {
        method: init.method ?? (init.body === undefined ? "GET" : "POST"),
        headers: { ...(init.body === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: AbortSignal.timeout(init.timeoutMs ?? 10_000),
      });
      const text = await response.text();
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {}
      return { status: response.status, body, ms: performance.now() - started };
    } catch (error) {
      return { status: 0, body: String(error), ms: performance.now() - started };
    }
  }

  const publicHeaders = { "x-public-key": merchant.publicKey };
  const secretHeaders = { "x-api-key": merchant.apiKey, "x-api-secret": merchant.apiSecret };
  let orders = 0;

  /** A deposit-address payment of `amount` USDC; throws unless 201. */
  async function createDeposit(amount: string, extra: Record<string, unknown> = {}) {
    const r = await request("/api/v1/deposits/create", { headers: publicHeaders, body: { amount, currency: "USDC", network: "anvil", orderId: `fault-${++orders}-${Date.now()}`, ...extra } });
    if (r.status !== 201) throw new Error(`deposit create answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body.payment as { id: string; depositAddress: Address; status: string };
  }

  /** The customer sends `units` of USDC to `to` (mined at once by anvil). */
  async function pay(to: Address, units: bigint): Promise<Hex> {
    const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [to, units], account: customer, chain: null });
    await chain.publicClient.waitForTransactionReceipt({ hash });
    return hash;
  }

  /** On chain, the USDC transfers out of / into `address`. */
  const transfersFrom = (from: Address) => chain.publicClient.getContractEvents({ address: usdc, abi: erc20Abi, eventName: "Transfer", args: { from }, fromBlock: 0n, toBlock: "latest" });
  const transfersTo = (to: Address) => chain.publicClient.getContractEvents({ address: usdc, abi: erc20Abi, eventName: "Transfer", args: { to }, fromBlock: 0n, toBlock: "latest" });

  /** Payment rows by status, for the ids given. */
  async function statuses(ids: string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await queryRows<{ id: string; status: string }>(handle.db, sql`select id, status from payments where id in ${ids}`);
    return new Map(rows.map((r) => [r.id, r.status]));
  }

  /** Polls until `check` returns a value (not undefined) or fails naming what, with the roles' logs. */
  async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await check().catch(() => undefined);
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${logs()}`);
      await Bun.sleep(100);
    }
  }

  /** The roles' recent output for a failure message; the whole of it goes to FAULTS_LOG_DIR (default the OS temp dir). */
  const logs = () => {
    const dir = process.env.FAULTS_LOG_DIR ?? tmpdir();
    for (const r of Object.values(roles)) writeFileSync(join(dir, `stablepay-fault-${r.role}.log`), r.output());
    return Object.values(roles).map((r) => `--- ${r.role} (whole log in ${join(dir, `stablepay-fault-${r.role}.log`)}):\n${r.output().slice(-3_000)}`).join("\n");
  };

  async function stop() {
    const bounded = (p: Promise<unknown>) => Promise.race([p.catch(() => {}), Bun.sleep(15_000)]);
    clearInterval(blocks);
    await bounded(Promise.all(Object.values(roles).map((r) => r.kill("SIGTERM"))));
    await bounded(handle.close());
    await bounded(chain.stop());
    await bounded(redis.stop());
    await bounded(pg.destroy());
  }

  return {
    chain,
    redis: redis as PrivateRedis,
    pg: pg as PrivatePostgres,
    db: handle.db,
    config,
    env,
    roles,
    baseUrl,
    indexerPort,
    merchant,
    usdc,
    publicHeaders,
    secretHeaders,
    request,
    createDeposit,
    pay,
    transfersFrom,
    transfersTo,
    statuses,
    until,
    logs,
    waitForIndexer: () => waitForIndexer(indexerPort, roles.indexer),
    stop,
  };
}

async function waitForIndexer(port: number, role: RoleProcess) {
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/ready`)).status === 200) return;
    } catch {}
    if (!role.alive()) throw new Error(`indexer exited before it was ready:\n${role.output().slice(-5_000)}`);
    if (Date.now() > deadline) throw new Error(`indexer not ready within 90 s:\n${role.output().slice(-5_000)}`);
    await Bun.sleep(200);
  }
}

export type ChainTransfer = Awaited<ReturnType<PaymentChain["publicClient"]["getContractEvents"]>>[number];

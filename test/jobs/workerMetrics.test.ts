import { buildConfig } from "../../plugins/config.ts";
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Job } from "bullmq";
import { sql } from "drizzle-orm";
import { type Config } from "../../config/index.ts";
import { enterLogContext } from "../../config/logContext.ts";
import { createLogger } from "../../config/logger.ts";
import { createDb, type DbHandle } from "../../db/client.ts";
import { createMerchant } from "../../db/merchants.ts";
import { transfersOut } from "../../db/schema/index.ts";
import { freePort } from "@stablepay/devchain/freePort";
import { withJobLogContext } from "../../jobs/jobLogContext.ts";
import { createPrompts } from "../../jobs/prompts.ts";
import { openQueue, QUEUES } from "../../jobs/queues.ts";
import { reconcile } from "../../jobs/reconcile.ts";
import { watchWorkerMetrics } from "../../jobs/workerMetrics.ts";
import { startMetricsServer } from "../../metrics/metricsServer.ts";
import { keepPonderFamilies, mergePonderMetrics } from "../../metrics/ponderMetrics.ts";
import { observeReceiptToStatus } from "../../metrics/settlementMetrics.ts";
import { registry } from "../../metrics/registry.ts";
import { createTestDatabase, type TestDatabase } from "../../harness/database.ts";
import { anvilNetwork, createPonderCheckpointTable, setIndexedBlock } from "../../harness/fixtures.ts";
import { createIndexedTables, insertIndexedTransfer } from "../../harness/indexedTables.ts";
import { insertPaymentRows, paymentRowFactory } from "../../harness/paymentRows.ts";
import { createTestRedis } from "../../harness/redis.ts";

let database: TestDatabase;
let handle: DbHandle;
let redis: ReturnType<typeof createTestRedis>;
let config: Config;
let merchantId: string;
const schema = "metrics_views";
const TOKEN = "op_metrics_token_0123456789";
const token = "0x5fbdb2315678afecb367f032d93f642f64180aa3";

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 3 });
  redis = createTestRedis();
  config = buildConfig(
    { APP_ENV: "test", DATABASE_URL: database.url, REDIS_URL: redis.url, QUEUE_PREFIX: redis.prefix, INDEXER_VIEWS_SCHEMA: schema, OPERATOR_TOKEN: TOKEN },
    { extraNetworks: [anvilNetwork("http://127.0.0.1:1", { requiredConfirmations: 3 })] },
  );
  merchantId = (await createMerchant(handle.db, { name: "Metrics" })).id;
  await createPonderCheckpointTable(handle.db, schema);
  await createIndexedTables(handle.db, schema);
});

afterAll(async () => {
  await handle.close();
  await redis.cleanup();
  await database.drop();
});

/** A metric's current values by label set, read from the process registry. */
async function values(name: string): Promise<Array<{ labels: Record<string, string | number>; value: number; metricName?: string }>> {
  const metric = registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name}`);
  return (await metric.get()).values as never;
}
const sample = async (name: string, labels: Record<string, string>, metricName = name) =>
  (await values(name)).find((v) => (v.metricName ?? name) === metricName && Object.entries(labels).every(([k, val]) => v.labels[k] === val))?.value ?? 0;

test("receipt → status: the block time of the credit to the reconcile commit, per network and transition", async () => {
  const payment = paymentRowFactory(config)(merchantId, { receiveAddress: "0x1111111111111111111111111111111111111111" });
  await insertPaymentRows(handle.db, [payment]);
  const blockTime = new Date(Date.now() - 30_000);
  await insertIndexedTransfer(handle.db, schema, {
    chainId: 31337, blockNumber: 10, txHash: "0xaa", token, from: "0x9999999999999999999999999999999999999999", to: payment.receiveAddress!, amount: 1_000_000n, at: blockTime,
  });
  const name = "stablepay_receipt_to_status_seconds";
  const before = {
    detected: await sample(name, { network: "anvil", transition: "detected" }, `${name}_count`),
    completed: await sample(name, { network: "anvil", transition: "completed" }, `${name}_count`),
    detectedSum: await sample(name, { network: "anvil", transition: "detected" }, `${name}_sum`),
    reconciles: await sample("stablepay_reconcile_duration_seconds", { job: "reconcile", outcome: "ok" }, "stablepay_reconcile_duration_seconds_count"),
  };
  const prompts = createPrompts(config);
  try {
    const job = reconcile(handle.db, config, prompts, createLogger({ level: "silent" }));
    // Indexed at block 10: detected (confirming, 1 of 3 confirmations), not yet completed.
    await setIndexedBlock(handle.db, schema, { name: "anvil", chainId: 31337 }, 10);
    expect(await job({ name: "reconcile", data: { paymentIds: [payment.id!] } } as Job)).toEqual({ reconciled: 1, changed: 1 });
    expect(await sample(name, { network: "anvil", transition: "detected" }, `${name}_count`)).toBe(before.detected + 1);
    expect(await sample(name, { network: "anvil", transition: "completed" }, `${name}_count`)).toBe(before.completed);
    const observed = (await sample(name, { network: "anvil", transition: "detected" }, `${name}_sum`)) - before.detectedSum;
    expect(observed).toBeGreaterThanOrEqual(30);
    expect(observed).toBeLessThan(40);

    // Block 12 gives the third confirmation: completed, observed once; a second run observes nothing more.
    await setIndexedBlock(handle.db, schema, { name: "anvil", chainId: 31337 }, 12);
    await job({ name: "reconcile", data: { paymentIds: [payment.id!] } } as Job);
    await job({ name: "reconcile", data: { paymentIds: [payment.id!] } } as Job);
    expect(await sample(name, { network: "anvil", transition: "detected" }, `${name}_count`)).toBe(before.detected + 1);
    expect(await sample(name, { network: "anvil", transition: "completed" }, `${name}_count`)).toBe(before.completed + 1);
    expect(await sample("stablepay_reconcile_duration_seconds", { job: "reconcile", outcome: "ok" }, "stablepay_reconcile_duration_seconds_count")).toBe(before.reconciles + 3);
  } finally {
    await prompts.close();
  }
});

test("sandbox simulations are no receipts: not observed", async () => {
  const name = "stablepay_receipt_to_status_seconds";
  const count = async (transition: string) => sample(name, { network: "anvil", transition }, `${name}_count`);
  const simulated = { timestamp: new Date(Date.now() - 5_000), source: "simulation" };
  const received = { timestamp: new Date(Date.now() - 5_000), source: "transfer" };
  {
    const before = { detected: await count("detected"), completed: await count("completed") };
    const pending = { chainId: "31337", detectedAt: null, status: "pending" };
    observeReceiptToStatus([{ before: pending, after: { status: "completed", detectedAt: simulated.timestamp, completingCredit: simulated } }], () => "anvil");
    expect(await count("detected")).toBe(before.detected);
    expect(await count("completed")).toBe(before.completed);
    observeReceiptToStatus([{ before: pending, after: { status: "completed", detectedAt: received.timestamp, completingCredit: received } }], () => "anvil");
    expect(await count("detected")).toBe(before.detected + 1);
    expect(await count("completed")).toBe(before.completed + 1);
  }
});

test("queue depths and sweeps/refunds in flight and stuck, read at scrape time", async () => {
  const stop = watchWorkerMetrics(config, handle.db);
  const queue = openQueue(config, QUEUES.maintenance);
  try {
    await queue.add("recheck", {}, { delay: 3_600_000 });
    await queue.add("recheck", {});
    await queue.add("recheck", {});
    const payment = paymentRowFactory(config)(merchantId, { receiveAddress: "0x3333333333333333333333333333333333333333" });
    await insertPaymentRows(handle.db, [payment]);
    const row = { paymentId: payment.id!, chainId: "31337", tokenAddress: token, toAddress: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC", amount: 1n };
    await handle.db.insert(transfersOut).values([
      { ...row, kind: "sweep", status: "broadcast" },
      { ...row, kind: "refund", status: "confirmed" },
    ]);
    // A second payment's refund, untouched for an hour: past three replacement rounds (3 × 180 s), stuck.
    const other = paymentRowFactory(config)(merchantId, { receiveAddress: "0x4444444444444444444444444444444444444444" });
    await insertPaymentRows(handle.db, [other]);
    await handle.db.insert(transfersOut).values({ ...row, paymentId: other.id!, kind: "refund", status: "requested" });
    await handle.db.execute(sql`update transfers_out set updated_at = now() - interval '1 hour' where payment_id = ${other.id!}`);

    const text = await registry.metrics();
    expect(text).toContain('stablepay_queue_jobs{queue="maintenance",state="waiting"} 2');
    expect(text).toContain('stablepay_queue_jobs{queue="maintenance",state="delayed"} 1');
    expect(text).toContain('stablepay_queue_jobs{queue="reconcile",state="failed"} 0');
    expect(text).toContain('stablepay_transfers_out_in_flight{network="anvil",kind="sweep"} 1');
    expect(text).toContain('stablepay_transfers_out_in_flight{network="anvil",kind="refund"} 1');
    expect(text).toContain('stablepay_transfers_out_stuck{network="anvil",kind="sweep"} 0');
    expect(text).toContain('stablepay_transfers_out_stuck{network="anvil",kind="refund"} 1');
    const oldest = Number(/^stablepay_transfers_out_oldest_seconds\{network="anvil",kind="refund"\} (\d+)$/m.exec(text)?.[1]);
    expect(oldest).toBeGreaterThanOrEqual(3600);
    expect(oldest).toBeLessThan(3700);
  } finally {
    await queue.obliterate({ force: true });
    await queue.close();
    await stop();
  }
  // Stopped: nothing more is read from this worker's queues or database.
  expect(await registry.metrics()).not.toContain('queue="maintenance"');
});

// BUG: the worker's queue handles waited for Redis (offline queue, endless retries), and one
// collector that never answered held the whole page: no worker metrics for the whole outage.
test("with Redis and Postgres unreachable, the worker's metrics still answer at once, without the series they feed", async () => {
  const down = buildConfig(
    { APP_ENV: "test", DATABASE_URL: "postgres://127.0.0.1:1/none", REDIS_URL: `redis://127.0.0.1:${await freePort()}`, QUEUE_PREFIX: redis.prefix, INDEXER_VIEWS_SCHEMA: schema },
    { extraNetworks: [anvilNetwork("http://127.0.0.1:1", { requiredConfirmations: 3 })] },
  );
  const unreachable = createDb(down.databaseUrl!, { max: 1 });
  const stop = watchWorkerMetrics(down, unreachable.db);
  try {
    const page = await Promise.race([registry.metrics(), Bun.sleep(5_000).then(() => null)]);
    expect(page).not.toBeNull();
    expect(page).toContain("process_cpu_seconds_total");
    expect(page).not.toContain("stablepay_queue_jobs{");
    expect(page).not.toContain("stablepay_transfers_out_in_flight{");
  } finally {
    await stop();
    await unreachable.close();
  }
});

test("a role's metrics server: only GET /metrics, only with the operator token", async () => {
  const port = await freePort();
  const server = startMetricsServer({ host: "127.0.0.1", port, token: TOKEN, logger: createLogger({ level: "silent" }), extra: async () => "# TYPE ponder_x gauge\nponder_x 7" });
  expect(server?.url).toBe(`http://127.0.0.1:${port}/metrics`);
  try {
    const none = await fetch(server!.url);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Basic");
    expect((await fetch(server!.url, { headers: { authorization: "Bearer nope-nope-nope-nope" } })).status).toBe(401);
    const ok = await fetch(server!.url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    const text = await ok.text();
    expect(text).toContain("# TYPE stablepay_reconcile_duration_seconds histogram");
    expect(text.trimEnd().endsWith("ponder_x 7")).toBe(true);
    expect((await fetch(`http://127.0.0.1:${port}/other`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    expect((await fetch(server!.url, { method: "POST", headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(405);
  } finally {
    await server?.stop();
  }
  // No token, or port 0: no server at all.
  expect(startMetricsServer({ host: "127.0.0.1", port, token: null, logger: createLogger({ level: "silent" }) })).toBeNull();
  expect(startMetricsServer({ host: "127.0.0.1", port: 0, token: TOKEN, logger: createLogger({ level: "silent" }) })).toBeNull();
});

test("a port already taken is logged, not fatal", async () => {
  const port = await freePort();
  const holder = Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response("x") });
  const lines: Array<Record<string, unknown>> = [];
  try {
    const logger = createLogger({ level: "warn", destination: { write: (l: string) => void lines.push(JSON.parse(l)) } });
    expect(startMetricsServer({ host: "127.0.0.1", port, token: TOKEN, logger })).toBeNull();
    expect(lines.map((l) => [l.msg, l.port])).toEqual([["metrics server could not start; this role runs without /metrics", port]]);
  } finally {
    await holder.stop();
  }
});

test("Ponder's own metrics are kept by family name, its process metrics dropped", () => {
  const text = [
    "# HELP process_cpu_seconds_total cpu",
    "# TYPE process_cpu_seconds_total counter",
    "process_cpu_seconds_total 1.5",
    "# HELP ponder_indexing_completed_events events",
    "# TYPE ponder_indexing_completed_events gauge",
    'ponder_indexing_completed_events{chain="anvil"} 12',
    "ponder_historical_total_indexing_seconds_bucket{le=\"1\"} 3",
  ].join("\n");
  expect(keepPonderFamilies(text)).toBe(
    [
      "# HELP ponder_indexing_completed_events events",
      "# TYPE ponder_indexing_completed_events gauge",
      'ponder_indexing_completed_events{chain="anvil"} 12',
      'ponder_historical_total_indexing_seconds_bucket{le="1"} 3',
    ].join("\n"),
  );
});

test("every log line of a job carries its payment ids, and the payment a processor learns later", async () => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: "info", destination: { write: (l: string) => void lines.push(JSON.parse(l)) } });
  const processor = withJobLogContext(async (job: Job) => {
    logger.info("first");
    await Bun.sleep(5);
    if (job.name === "refund") enterLogContext({ paymentId: "p-of-the-row" });
    await Promise.resolve();
    logger.info("second");
  });
  await Promise.all([
    processor({ name: "reconcile", id: "j1", data: { paymentIds: ["a", "b"] } } as Job),
    processor({ name: "refund", id: "j2", data: { transferId: "t1" } } as Job),
  ]);
  logger.info("outside");
  const byMsg = (job: string) => lines.filter((l) => l.job === job).map((l) => [l.msg, l.paymentIds ?? l.paymentId ?? null]);
  expect(byMsg("reconcile")).toEqual([["first", ["a", "b"]], ["second", ["a", "b"]]]);
  expect(byMsg("refund")).toEqual([["first", null], ["second", "p-of-the-row"]]);
  expect(lines.find((l) => l.msg === "second" && l.job === "refund")?.transferId).toBe("t1");
  expect(lines.find((l) => l.msg === "outside")).toEqual(expect.not.objectContaining({ job: expect.anything() }));
});

test("the indexer's Ponders (one per chain): each family's HELP and TYPE once, every Ponder's samples labelled with its chain", () => {
  const of = (chain: string, value: number) =>
    ["# HELP ponder_sync_block block", "# TYPE ponder_sync_block gauge", `ponder_sync_block{chain="${chain}"} ${value}`, "# HELP ponder_up up", "# TYPE ponder_up gauge", `ponder_up ${value}`].join("\n");
  expect(mergePonderMetrics([{ chainId: "1", text: of("a", 5) }, { chainId: "2", text: of("b", 7) }])).toBe(
    [
      "# HELP ponder_sync_block block",
      "# TYPE ponder_sync_block gauge",
      'ponder_sync_block{indexer_chain_id="1",chain="a"} 5',
      'ponder_sync_block{indexer_chain_id="2",chain="b"} 7',
      "# HELP ponder_up up",
      "# TYPE ponder_up gauge",
      'ponder_up{indexer_chain_id="1"} 5',
      'ponder_up{indexer_chain_id="2"} 7',
    ].join("\n"),
  );
});

import { buildConfig } from "../../plugins/config.ts";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { QueueEvents, Worker } from "bullmq";
import { eq, sql } from "drizzle-orm";
import { type Config } from "../../config/index.ts";
import { createLogger } from "../../config/logger.ts";
import { createDb, type DbHandle } from "../../db/client.ts";
import { deleteExpiredIdempotencyKeys } from "../../db/idempotencyCleanup.ts";
import { createMerchant } from "../../db/merchants.ts";
import { idempotencyKeys } from "../../db/schema/index.ts";
import { openQueue, QUEUES, redisConnection } from "../../jobs/queues.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { createPrompts } from "../../jobs/prompts.ts";
import { createTestDatabase, type TestDatabase } from "../../harness/database.ts";
import { createTestRedis } from "../../harness/redis.ts";

let database: TestDatabase;
let handle: DbHandle;
let redis: ReturnType<typeof createTestRedis>;
let config: Config;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 3 });
  redis = createTestRedis();
  config = buildConfig({ APP_ENV: "test", DATABASE_URL: database.url, REDIS_URL: redis.url, QUEUE_PREFIX: redis.prefix });
});
afterAll(async () => {
  await handle.close();
  await redis.cleanup();
  await database.drop();
});

test("workers declare their schedules once, however many replicas start", async () => {
  const logger = createLogger({ level: "silent" });
  const a = await startWorkers({ config, db: handle.db, logger });
  const b = await startWorkers({ config, db: handle.db, logger });
  const queue = openQueue(config, QUEUES.maintenance);
  try {
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers.map((s) => [s.key, s.every]).sort()).toEqual([
      ["idempotency-cleanup", 3_600_000],
      ["recheck", 30_000],
    ]);
  } finally {
    await queue.close();
    await Promise.all([a.close(), b.close()]);
  }
});

// BUG: the schedules were declared again only when the Redis connection came back; a flush
// (FLUSHALL from a console) keeps the connection, so the recheck — the safety net for sweeps,
// refunds, expiry and lost prompts — never ran again until a worker restarted.
test("schedules a flush removed are declared again without a reconnect", async () => {
  const workers = await startWorkers({ config, db: handle.db, logger: createLogger({ level: "silent" }), scheduleWatchMs: 200, transfers: false, webhooks: false, dispatch: false });
  const queue = openQueue(config, QUEUES.maintenance);
  try {
    const keys = await redis.redis.keys(`${redis.prefix}:*`);
    if (keys.length) await redis.redis.del(...keys); // this file's share of a FLUSHALL
    expect(await queue.getJobSchedulers()).toEqual([]);
    const deadline = Date.now() + 5_000;
    while ((await queue.getJobSchedulers()).length < 2 && Date.now() < deadline) await Bun.sleep(100);
    expect((await queue.getJobSchedulers()).map((s) => [s.key, s.every]).sort()).toEqual([
      ["idempotency-cleanup", 3_600_000],
      ["recheck", 30_000],
    ]);
  } finally {
    await queue.close();
    await workers.close();
  }
});

// BUG: sweep and refund prompts had minute-bucketed ids, so the recheck's prompt each minute added
// another job beside one still retrying (a stuck transaction, a disabled network): hundreds of
// copies of one sweep, each holding a transfer slot.
test("sweep prompts: one job a payment while it waits or retries; a prompt while it runs gives one more run", async () => {
  const prompts = createPrompts(config);
  const queue = openQueue(config, QUEUES.transfers);
  const jobsOf = async (paymentId: string) =>
    (await queue.getJobs(["waiting", "delayed", "active", "prioritized"])).filter((j) => j.data.paymentId === paymentId);
  let worker: Worker | undefined;
  try {
    const realNow = Date.now;
    try {
      await prompts.sweep(["p-waiting"]);
      Date.now = () => realNow() + 61_000; // the next minute's recheck
      await prompts.sweep(["p-waiting"]);
    } finally {
      Date.now = realNow;
    }
    expect(await jobsOf("p-waiting")).toHaveLength(1);
    await queue.obliterate({ force: true });

    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    worker = new Worker(QUEUES.transfers, async () => {
      runs++;
      started();
      if (runs === 1) await held;
    }, { connection: redisConnection(config.redis.url), prefix: config.redis.prefix });
    await prompts.sweep(["p-running"]);
    await running;
    await prompts.sweep(["p-running"]);
    await prompts.sweep(["p-running"]);
    release();
    const deadline = Date.now() + 5_000;
    while (runs < 2 && Date.now() < deadline) await Bun.sleep(50);
    await Bun.sleep(300);
    expect(runs).toBe(2);
  } finally {
    await worker?.close();
    await prompts.close();
    await queue.close();
  }
});

test("idempotency cleanup deletes only keys past 24 hours and is harmless when run twice", async () => {
  const merchant = await createMerchant(handle.db, { name: "Cleanup" });
  const row = (key: string, hoursAgo: number) => ({
    merchantId: merchant.id,
    mode: "test" as const,
    scope: "payments.create",
    key,
    requestHash: "h",
    createdAt: sql`now() - make_interval(hours => ${hoursAgo})` as unknown as Date,
  });
  await handle.db.insert(idempotencyKeys).values([row("old", 25), row("fresh", 1), row("edge", 23)]);

  const workers = await startWorkers({ config, db: handle.db, logger: createLogger({ level: "silent" }) });
  const queue = openQueue(config, QUEUES.maintenance);
  const events = new QueueEvents(QUEUES.maintenance, { connection: redisConnection(config.redis.url), prefix: config.redis.prefix });
  await events.waitUntilReady();
  try {
    const first = await queue.add("idempotency-cleanup", { olderThanHours: 24 });
    expect(await first.waitUntilFinished(events, 10_000)).toEqual({ deleted: 1 });
    const second = await queue.add("idempotency-cleanup", { olderThanHours: 24 });
    expect(await second.waitUntilFinished(events, 10_000)).toEqual({ deleted: 0 });
    const left = await handle.db.select({ key: idempotencyKeys.key }).from(idempotencyKeys);
    expect(left.map((r) => r.key).sort()).toEqual(["edge", "fresh"]);
  } finally {
    await events.close();
    await queue.close();
    await workers.close();
  }
});

// BUG: the cleanup deleted every expired key in one statement found by a scan of the whole table,
// and carried each deleted key back to the worker only to count them: millions at a day's volume.
test("idempotency cleanup deletes in batches by age, counted in Postgres; a fresh key stays", async () => {
  const merchant = await createMerchant(handle.db, { name: "Volume" });
  await handle.db.execute(sql`
    insert into idempotency_keys (merchant_id, mode, scope, key, request_hash, created_at)
    select ${merchant.id}, 'test', 'payments.create', 'k' || g, 'h', now() - interval '30 hours' from generate_series(1, 25000) g`);
  await handle.db.insert(idempotencyKeys).values({ merchantId: merchant.id, mode: "test", scope: "payments.create", key: "today", requestHash: "h" });
  expect(await deleteExpiredIdempotencyKeys(handle.db, 24)).toBe(25_000);
  const left = await handle.db.select({ key: idempotencyKeys.key }).from(idempotencyKeys).where(eq(idempotencyKeys.merchantId, merchant.id));
  expect(left.map((r) => r.key)).toEqual(["today"]);
});

test("a job with no processor fails at once instead of retrying", async () => {
  const workers = await startWorkers({ config, db: handle.db, logger: createLogger({ level: "silent" }) });
  const queue = openQueue(config, QUEUES.maintenance);
  const events = new QueueEvents(QUEUES.maintenance, { connection: redisConnection(config.redis.url), prefix: config.redis.prefix });
  await events.waitUntilReady();
  try {
    const job = await queue.add("no-such-job", {}, { attempts: 5 });
    await expect(job.waitUntilFinished(events, 10_000)).rejects.toThrow("no processor for job no-such-job");
    const failed = await queue.getJob(job.id!);
    expect(failed?.attemptsMade).toBe(1);
  } finally {
    await events.close();
    await queue.close();
    await workers.close();
  }
});

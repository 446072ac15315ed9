import { buildConfig } from "../../plugins/config.ts";
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import type { Job, Queue } from "bullmq";
import { sql } from "drizzle-orm";
import { type Config } from "../../config/index.ts";
import { createLogger } from "../../config/logger.ts";
import { createDb, type DbHandle } from "../../db/client.ts";
import { createMerchant } from "../../db/merchants.ts";
import { dispatchCursorBlocks } from "../../db/dispatchCursors.ts";
import { paymentsToRecheck } from "../../db/paymentsToRevisit.ts";
import { insertSimulatedCredit, SIMULATED_CREDIT_BLOCK } from "../../db/simulatedCredits.ts";
import { startDispatcher } from "../../reconcile/index.ts";
import { createPrompts } from "../../jobs/prompts.ts";
import type { JobPayloads } from "../../jobs/queues.ts";
import { recheck } from "../../jobs/recheck.ts";
import { openQueue, QUEUES } from "../../jobs/queues.ts";
import type { Prompts } from "../../domain/prompts.ts";
import { createTestDatabase, type TestDatabase } from "../../harness/database.ts";
import { anvilNetwork, createPonderCheckpointTable, setIndexedBlock } from "../../harness/fixtures.ts";
import { insertPaymentRows, paymentRowFactory } from "../../harness/paymentRows.ts";
import { createTestRedis } from "../../harness/redis.ts";

/**
 * Dispatch against a hand-written indexer schema (Ponder's table shapes), so each
 * case sets exactly the indexed state it needs and reads the prompts it produced.
 */
let database: TestDatabase;
let handle: DbHandle;
let redis: ReturnType<typeof createTestRedis>;
let config: Config;
let queue: Queue;
let prompts: Prompts;
let merchantId: string;
const schema = "dispatch_views";
const chain = { name: "anvil", chainId: 31337 };
const depositAddress = "0x1111111111111111111111111111111111111111";

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 3 });
  redis = createTestRedis();
  config = buildConfig(
    { APP_ENV: "test", DATABASE_URL: database.url, REDIS_URL: redis.url, QUEUE_PREFIX: redis.prefix, INDEXER_VIEWS_SCHEMA: schema },
    { extraNetworks: [anvilNetwork("http://127.0.0.1:1", { requiredConfirmations: 3 })] },
  );
  queue = openQueue(config, QUEUES.reconcile);
  prompts = createPrompts(config);
  merchantId = (await createMerchant(handle.db, { name: "Dispatch" })).id;
  await createPonderCheckpointTable(handle.db, schema);
  await handle.db.execute(sql.raw(`
    create table ${schema}.token_transfer (
      id text primary key, chain_id integer not null, block_number numeric(78,0) not null, block_hash text not null, tx_hash text not null,
      log_index integer not null, token text not null, "from" text not null, "to" text not null, amount numeric(78,0) not null, timestamp numeric(78,0) not null)`));
});

afterAll(async () => {
  await queue.close();
  await prompts.close();
  await handle.close();
  await redis.cleanup();
  await database.drop();
});

beforeEach(async () => {
  await queue.obliterate({ force: true });
  await handle.db.execute(sql.raw(`truncate ${schema}.token_transfer; delete from dispatch_cursors; delete from simulated_credits; delete from payments`));
});

const dispatcher = () => startDispatcher({ config, db: handle.db, logger: createLogger({ level: "silent" }), prompts, databaseUrl: database.url, intervalMs: 3_600_000 });

async function promptedIds(): Promise<Set<string>> {
  const jobs = await queue.getJobs(["waiting", "delayed", "prioritized"]);
  return new Set(jobs.flatMap((j) => (j.data as { paymentIds: string[] }).paymentIds));
}

/** The token of the payments `paymentRowFactory` makes (a transfer of another token pays nothing, so prompts nothing). */
const token = "0x5fbdb2315678afecb367f032d93f642f64180aa3";

async function indexTransfer(block: number, to: string, amount = 1_000_000n) {
  await handle.db.execute(sql`
    insert into ${sql.identifier(schema)}.token_transfer values
      (${`31337:0x${block.toString(16)}:0`}, 31337, ${block}, ${`0xb${block}`}, ${`0xt${block}`}, 0, ${token}, '0xfrom', ${to.toLowerCase()}, ${amount.toString()}, 0)`);
}

test("a transfer to a payment's address prompts its reconcile once per indexed block", async () => {
  const [row] = await insertPaymentRows(handle.db, [paymentRowFactory(config)(merchantId, { receiveAddress: depositAddress })]);
  const other = paymentRowFactory(config)(merchantId, { receiveAddress: "0x2222222222222222222222222222222222222222" });
  await insertPaymentRows(handle.db, [other]);
  await indexTransfer(10, depositAddress);
  await setIndexedBlock(handle.db, schema, chain, 10);
  const d = dispatcher();
  try {
    await d.wake();
    expect(await promptedIds()).toEqual(new Set([row!.id!]));
    // Waking again at the same head prompts nothing new.
    await queue.obliterate({ force: true });
    await d.wake();
    expect((await promptedIds()).size).toBe(0);
  } finally {
    await d.stop();
  }
});

test("evidence still short of its confirmations is re-prompted on each new block, even before its reconcile has run", async () => {
  // The race this guards: the reconcile prompted at block 10 has not committed
  // `confirming` yet when block 11 is indexed, so the status alone would not re-prompt it.
  const [row] = await insertPaymentRows(handle.db, [paymentRowFactory(config)(merchantId, { receiveAddress: depositAddress })]);
  await indexTransfer(10, depositAddress);
  await setIndexedBlock(handle.db, schema, chain, 10);
  const d = dispatcher();
  try {
    await d.wake();
    for (const head of [11, 12]) {
      await queue.obliterate({ force: true });
      await setIndexedBlock(handle.db, schema, chain, head);
      await d.wake();
      expect(await promptedIds()).toEqual(new Set([row!.id!]));
    }
    // Block 12 gave the transfer its third confirmation; block 13 changes nothing for it.
    await queue.obliterate({ force: true });
    await setIndexedBlock(handle.db, schema, chain, 13);
    await d.wake();
    expect((await promptedIds()).size).toBe(0);
  } finally {
    await d.stop();
  }
});

test("payments already confirming are re-prompted on each new block", async () => {
  const [row] = await insertPaymentRows(handle.db, [paymentRowFactory(config)(merchantId, { status: "confirming" })]);
  await setIndexedBlock(handle.db, schema, chain, 50);
  const d = dispatcher();
  try {
    await d.wake();
    expect(await promptedIds()).toEqual(new Set([row!.id!]));
  } finally {
    await d.stop();
  }
});

// BUG: a sandbox simulation's credit sits at block 2^64-1, so every simulated payment
// counted as "completed above the cursor" and was re-prompted on every new block, forever.
test("a simulated payment is final: new blocks never prompt it, a real one completed above the cursor is", async () => {
  const make = paymentRowFactory(config);
  const [simulated, real] = await insertPaymentRows(handle.db, [
    make(merchantId, { status: "completed", completedVia: "simulation", completingBlock: SIMULATED_CREDIT_BLOCK, isTest: true, mode: "test" }),
    make(merchantId, { status: "completed", completingBlock: 45n }),
  ]);
  const d = dispatcher();
  try {
    await setIndexedBlock(handle.db, schema, chain, 40);
    await d.wake();
    await queue.obliterate({ force: true });
    await setIndexedBlock(handle.db, schema, chain, 41);
    await d.wake();
    const prompted = await promptedIds();
    expect(prompted.has(real!.id!)).toBe(true);
    expect(prompted.has(simulated!.id!)).toBe(false);
  } finally {
    await d.stop();
  }
});

// BUG: when the reconcile after a simulation's credit failed, nothing looked at the payment
// again until it expired, while each retry of the simulation answered "already completed".
test("the recheck takes a pending payment whose sandbox simulation was not reconciled", async () => {
  const [simulated, untouched] = await insertPaymentRows(handle.db, [
    paymentRowFactory(config)(merchantId, { isTest: true, mode: "test" }),
    paymentRowFactory(config)(merchantId, { isTest: true, mode: "test" }),
  ]);
  await insertSimulatedCredit(handle.db, { paymentId: simulated!.id!, txHash: "0xsimulated", amount: 1_000_000n, createdAt: new Date() });
  const ids = await paymentsToRecheck(handle.db, [{ chainId: "31337", finalized: 10n, blocks: 3 }]);
  expect(ids).toContain(simulated!.id!);
  expect(ids).not.toContain(untouched!.id!);
});

// BUG: Redis restarted empty (it keeps nothing on disk) just after dispatch prompted a paid
// payment: its cursor had moved on and the payment showed no money, so no recheck took it until
// its expiry — a customer who paid waited half an hour to see it. Once after such a loss, the
// recheck takes every open payment and every one that ended within the day.
test("after Redis lost its prompts, the recheck takes every open payment once, paid or not", async () => {
  const make = paymentRowFactory(config);
  const [paid, unpaid, endedToday, endedLongAgo] = await insertPaymentRows(handle.db, [
    make(merchantId, { receiveAddress: depositAddress }),
    make(merchantId, { receiveAddress: "0x2222222222222222222222222222222222222222" }),
    make(merchantId, { status: "expired" }),
    make(merchantId, { status: "expired" }),
  ]);
  await handle.db.execute(sql`update payments set updated_at = now() - interval '2 days' where id = ${endedLongAgo!.id!}`);
  await indexTransfer(10, depositAddress);
  await setIndexedBlock(handle.db, schema, chain, 10);
  const d = dispatcher();
  const job = recheck({ config, db: handle.db, logger: createLogger({ level: "silent" }), databaseUrl: database.url }, prompts);
  const run = () => job({ id: "test" } as Job<JobPayloads["recheck"]>);
  const cursors = () => dispatchCursorBlocks(handle.db);
  try {
    await prompts.markKept(await cursors());
    await d.wake();
    expect(await promptedIds()).toEqual(new Set([paid!.id!]));
    // The prompt is lost; the cursor stays where it is: a recheck with Redis intact takes nothing.
    await queue.obliterate({ force: true });
    await run();
    expect((await promptedIds()).size).toBe(0);
    // Redis restarted empty: its marker went with the jobs.
    await redis.redis.del(`${redis.prefix}:prompts-kept`);
    expect(await prompts.mayHaveLost(await cursors())).toBe(true);
    await run();
    expect(await promptedIds()).toEqual(new Set([paid!.id!, unpaid!.id!, endedToday!.id!]));
    // Given again once: the next recheck is the usual one.
    expect(await prompts.mayHaveLost(await cursors())).toBe(false);
    await queue.obliterate({ force: true });
    await run();
    expect((await promptedIds()).size).toBe(0);

    // BUG: Redis restored from an older snapshot kept its marker (set once, long before), so the
    // prompts it lost went unnoticed. Dispatch notes what it prompted beside them, before its
    // cursor in Postgres moves: a note behind the cursor is a store that went back in time.
    expect((await cursors()).get("31337")).toBe(10n);
    await redis.redis.hset(`${redis.prefix}:prompted-through`, "31337", "9");
    expect(await prompts.mayHaveLost(await cursors())).toBe(true);
    await run();
    expect(await promptedIds()).toEqual(new Set([paid!.id!, unpaid!.id!, endedToday!.id!]));
    expect(await prompts.mayHaveLost(await cursors())).toBe(false);
  } finally {
    await d.stop();
  }
});

// BUG: with a chain's final block unreadable (one timeout), every completed payment ever whose
// stored confirmations stopped under twice the required ones was reconciled again, on each hiccup.
test("a chain's final block unknown: the recheck takes completed payments under twice their confirmations from the last day only", async () => {
  const day = 24 * 60 * 60 * 1000;
  const [recent, old] = await insertPaymentRows(handle.db, [
    paymentRowFactory(config)(merchantId, { status: "completed", completedVia: "transfer", completingBlock: 100n, confirmations: 4, confirmedAt: new Date(Date.now() - 60_000) }),
    paymentRowFactory(config)(merchantId, { status: "completed", completedVia: "transfer", completingBlock: 5n, confirmations: 4, confirmedAt: new Date(Date.now() - 2 * day) }),
  ]);
  expect(await paymentsToRecheck(handle.db, [{ chainId: "31337", finalized: null, blocks: 3 }])).toEqual([recent!.id!]);
  expect(old).toBeDefined();
});

/**
 * A transfer to the deposit address at block 20, dispatched at 40; then a reorg removes it
 * (and `reindexed` writes what the new chain has), the indexer moves on to 41: the ids prompted then.
 */
async function promptedAfterReorg(reindexed: () => Promise<void> = async () => {}): Promise<Set<string>> {
  await indexTransfer(20, depositAddress);
  await setIndexedBlock(handle.db, schema, chain, 40);
  const d = dispatcher();
  try {
    await d.wake();
    await queue.obliterate({ force: true });
    await handle.db.execute(sql.raw(`delete from ${schema}.token_transfer`));
    await reindexed();
    await setIndexedBlock(handle.db, schema, chain, 41);
    await d.wake();
    return await promptedIds();
  } finally {
    await d.stop();
  }
}

// BUG: only payments a reorged block had completed were looked at again: late money (or an
// excess) it removed from an ended payment stayed in what the payment said it was owed.
test("a reorg that removes late money from an expired payment prompts it again, as the recheck does until its block is final", async () => {
  const [row] = await insertPaymentRows(handle.db, [paymentRowFactory(config)(merchantId, { receiveAddress: depositAddress, status: "expired", lateAmount: 1_000_000n, evidenceBlock: 20n })]);
  expect(await promptedAfterReorg()).toEqual(new Set([row!.id!]));
  const recheck = (finalized: bigint | null) => paymentsToRecheck(handle.db, [{ chainId: "31337", finalized, blocks: 3 }]);
  expect(await recheck(19n)).toEqual([row!.id!]);
  expect(await recheck(20n)).toEqual([]);
});

test("a reorg that rewrites indexed blocks below the cursor prompts the payments there again", async () => {
  const [row] = await insertPaymentRows(handle.db, [paymentRowFactory(config)(merchantId, { receiveAddress: depositAddress })]);
  // The new chain has the payment's transfer at block 30 instead.
  expect(await promptedAfterReorg(() => indexTransfer(30, depositAddress))).toEqual(new Set([row!.id!]));
});

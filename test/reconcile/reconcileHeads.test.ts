import { buildConfig } from "../../plugins/config.ts";
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import pg from "pg";
import { type Config } from "../../config/index.ts";
import { createDb, queryRows, type DbHandle } from "../../db/client.ts";
import { createMerchant } from "../../db/merchants.ts";
import { findPayment } from "../../db/payments.ts";
import { insertSubmissions } from "../../db/submissions.ts";
import { indexedBlocks } from "../../rails/evm/readModel/indexedBlocks.ts";
import { noteIndexedRemovals } from "../../rails/evm/readModel/noteRemovals.ts";
import { reconcilePayments } from "../../reconcile/index.ts";
import { reconcile as reconcileJob } from "../../jobs/reconcile.ts";
import { createPrompts } from "../../jobs/prompts.ts";
import { createLogger } from "../../config/logger.ts";
import { ServiceUnavailableError } from "../../domain/errors.ts";
import { createTestDatabase, type TestDatabase } from "../../harness/database.ts";
import { anvilNetwork, createPonderCheckpointTable, encodePonderCheckpoint } from "../../harness/fixtures.ts";
import { createIndexedTables, insertIndexedTransfer } from "../../harness/indexedTables.ts";
import { insertPaymentRows, paymentRowFactory } from "../../harness/paymentRows.ts";

/**
 * What reconcile makes of an indexer that reads again blocks it had read. Ponder, restarted,
 * deletes its rows above its last final block (`safe_checkpoint`) and re-reads them while
 * `latest_checkpoint` still names where it stopped, and says it is not ready meanwhile; then
 * its head climbs back from the final block. Neither the rows missing for a while nor the
 * lower head is evidence that money left: payments keep their answers, and no event repeats.
 */
const schema = "reread_views";
const CHAIN = { name: "anvil", chainId: 31337 };
const REQUIRED = 3;
let database: TestDatabase;
let handle: DbHandle;
let config: Config;
let merchantId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
  config = buildConfig({ APP_ENV: "test", DATABASE_URL: database.url, INDEXER_VIEWS_SCHEMA: schema }, { extraNetworks: [anvilNetwork("http://127.0.0.1:1", { requiredConfirmations: REQUIRED })] });
  merchantId = (await createMerchant(handle.db, { name: "Reread" })).id;
  await createIndexedTables(handle.db, schema);
  await createPonderCheckpointTable(handle.db, schema);
  await handle.db.execute(sql`create table ${sql.identifier(schema)}."_ponder_meta" (key text primary key, value jsonb not null)`);
});

afterAll(async () => {
  await handle.close();
  await database.drop();
});

const checkpointAt = (block: number) =>
  encodePonderCheckpoint({ blockTimestamp: Math.floor(Date.now() / 1000), chainId: CHAIN.chainId, blockNumber: block, transactionIndex: 9_999_999_999_999_999n, eventType: 9, eventIndex: 9_999_999_999_999_999n });

/** Ponder's bookkeeping: its safe and latest blocks, and whether it calls itself ready. */
async function indexer(state: { safe: number; latest: number; ready: boolean }) {
  const s = sql.identifier(schema);
  await handle.db.execute(sql`
    insert into ${s}."_ponder_checkpoint" (chain_name, chain_id, safe_checkpoint, latest_checkpoint, finalized_checkpoint)
    values (${CHAIN.name}, ${CHAIN.chainId}, ${checkpointAt(state.safe)}, ${checkpointAt(state.latest)}, ${checkpointAt(state.safe)})
    on conflict (chain_name) do update set safe_checkpoint = excluded.safe_checkpoint, latest_checkpoint = excluded.latest_checkpoint, finalized_checkpoint = excluded.finalized_checkpoint`);
  await handle.db.execute(sql`
    insert into ${s}."_ponder_meta" (key, value) values ('app', jsonb_build_object('is_ready', ${state.ready ? 1 : 0}::int))
    on conflict (key) do update set value = excluded.value`);
}

let blocks = 1_000;
/** A deposit payment of 1 USDC and its indexed transfers (block numbers returned). */
async function deposit(...amounts: bigint[]) {
  const [row] = await insertPaymentRows(handle.db, [paymentRowFactory(config)(merchantId, { receiveAddress: `0x${crypto.randomUUID().replaceAll("-", "").padEnd(40, "0")}` })]);
  const at = new Date(Date.now() - 60_000);
  const transfers = [];
  for (const amount of amounts) {
    const block = (blocks += 10);
    const txHash = `0x${block}`;
    await insertIndexedTransfer(handle.db, schema, { ...CHAIN, blockNumber: block, txHash, token: row!.tokenAddress!, from: "0x01", to: row!.receiveAddress!, amount, at });
    transfers.push({ block, txHash });
  }
  return { id: row!.id!, transfers };
}

const eventsOf = async (id: string) =>
  (await queryRows<{ type: string }>(handle.db, sql`select type from payment_events where payment_id = ${id} order by sequence`)).map((e) => e.type);
const dropTransfer = (txHash: string) => handle.db.execute(sql`delete from ${sql.identifier(schema)}.token_transfer where tx_hash = ${txHash}`);

beforeEach(async () => {
  await handle.db.execute(sql`delete from ${sql.identifier(schema)}."_ponder_meta"`);
});

test("a head below the one a payment's confirmations were counted at (the indexer catching up after a restart) leaves it completed", async () => {
  const paid = await deposit(1_000_000n);
  const block = paid.transfers[0]!.block;
  await indexer({ safe: block - 50, latest: block + 10, ready: true });
  await reconcilePayments(handle.db, config, [paid.id]);
  expect(await findPayment(handle.db, paid.id)).toMatchObject({ status: "completed", confirmations: 11, completingBlock: BigInt(block) });
  const told = await eventsOf(paid.id);
  expect(told).toContain("payment.completed");

  // Back to a few blocks above the payment's (the evidence re-read, the head not yet where it was).
  await indexer({ safe: block - 50, latest: block + 1, ready: true });
  await reconcilePayments(handle.db, config, [paid.id]);
  expect(await findPayment(handle.db, paid.id)).toMatchObject({ status: "completed", confirmations: 11 });
  expect(await eventsOf(paid.id)).toEqual(told);

  // Past where it was: counted on from there.
  await indexer({ safe: block - 50, latest: block + 20, ready: true });
  await reconcilePayments(handle.db, config, [paid.id]);
  expect(await findPayment(handle.db, paid.id)).toMatchObject({ status: "completed", confirmations: 21 });
  expect(await eventsOf(paid.id)).toEqual(told);
});

// BUG: raising a network's required confirmations took payments completed under the old number
// back to `confirming`, with a false `payment.reverted` (after completion) and a second `payment.completed` later.
test("required confirmations raised: a payment completed under the old number stays completed, with no event", async () => {
  const paid = await deposit(1_000_000n);
  const block = paid.transfers[0]!.block;
  await indexer({ safe: block - 50, latest: block + 4, ready: true });
  await reconcilePayments(handle.db, config, [paid.id]);
  expect(await findPayment(handle.db, paid.id)).toMatchObject({ status: "completed", confirmations: 5 });
  const told = await eventsOf(paid.id);
  const raised = { ...config, networks: config.networks.map((n) => (n.chainId === String(CHAIN.chainId) ? { ...n, requiredConfirmations: 20 } : n)) };
  await reconcilePayments(handle.db, raised, [paid.id]);
  expect(await findPayment(handle.db, paid.id)).toMatchObject({ status: "completed", confirmations: 5 });
  expect(await eventsOf(paid.id)).toEqual(told);
  // A payment not completed yet waits for the new number.
  const fresh = await deposit(1_000_000n);
  await indexer({ safe: block - 50, latest: fresh.transfers[0]!.block + 4, ready: true });
  await reconcilePayments(handle.db, raised, [fresh.id]);
  expect(await findPayment(handle.db, fresh.id)).toMatchObject({ status: "confirming", confirmations: 5 });
});

test("while the indexer re-reads after a restart (not ready, rows above its safe block gone), every answer on its chain stands", async () => {
  const completed = await deposit(1_000_000n);
  const partial = await deposit(400_000n);
  const last = partial.transfers[0]!.block;
  await indexer({ safe: completed.transfers[0]!.block - 100, latest: last + 10, ready: true });
  await reconcilePayments(handle.db, config, [completed.id, partial.id]);
  expect(await findPayment(handle.db, completed.id)).toMatchObject({ status: "completed" });
  expect(await findPayment(handle.db, partial.id)).toMatchObject({ status: "pending", amountReceived: 400_000n });
  const told = { completed: await eventsOf(completed.id), partial: await eventsOf(partial.id) };

  // Ponder's crash recovery: rows above the safe block deleted, latest left where it was, not ready.
  await indexer({ safe: completed.transfers[0]!.block - 100, latest: last + 10, ready: false });
  await dropTransfer(completed.transfers[0]!.txHash);
  await dropTransfer(partial.transfers[0]!.txHash);
  const heads = await indexedBlocks(handle.db, schema);
  expect(heads.get("31337")).toBe(BigInt(completed.transfers[0]!.block - 100)); // verified only through the safe block
  expect([...(heads.rereading ?? [])]).toEqual(["31337"]);
  const run = await reconcilePayments(handle.db, config, [completed.id, partial.id]);
  expect([...run.values()].map((r) => r.changed)).toEqual([false, false]);
  expect(await findPayment(handle.db, completed.id)).toMatchObject({ status: "completed", amountReceived: 1_000_000n });
  expect(await findPayment(handle.db, partial.id)).toMatchObject({ status: "pending", amountReceived: 400_000n });

  // Re-read and ready: the same answers, nothing told twice.
  for (const p of [completed, partial]) {
    await insertIndexedTransfer(handle.db, schema, { ...CHAIN, blockNumber: p.transfers[0]!.block, txHash: p.transfers[0]!.txHash, token: "0x5FbDB2315678afecb367f032d93F642f64180aa3", from: "0x01", to: (await findPayment(handle.db, p.id))!.receiveAddress!, amount: p === completed ? 1_000_000n : 400_000n, at: new Date(Date.now() - 60_000) });
  }
  await indexer({ safe: completed.transfers[0]!.block - 100, latest: last + 12, ready: true });
  expect((await indexedBlocks(handle.db, schema)).rereading?.size).toBe(0);
  await reconcilePayments(handle.db, config, [completed.id, partial.id]);
  expect(await findPayment(handle.db, completed.id)).toMatchObject({ status: "completed", amountReceived: 1_000_000n });
  expect(await findPayment(handle.db, partial.id)).toMatchObject({ status: "pending", amountReceived: 400_000n });
  expect({ completed: await eventsOf(completed.id), partial: await eventsOf(partial.id) }).toEqual(told);
});

test("a ready indexer whose rows are gone is believed: a reorg's removal still reverts the payment", async () => {
  const paid = await deposit(1_000_000n);
  const block = paid.transfers[0]!.block;
  await indexer({ safe: block - 50, latest: block + 5, ready: true });
  await reconcilePayments(handle.db, config, [paid.id]);
  expect(await findPayment(handle.db, paid.id)).toMatchObject({ status: "completed" });
  await dropTransfer(paid.transfers[0]!.txHash);
  await indexer({ safe: block - 50, latest: block + 6, ready: true });
  await reconcilePayments(handle.db, config, [paid.id]);
  expect(await findPayment(handle.db, paid.id)).toMatchObject({ status: "pending", amountReceived: 0n });
  expect((await eventsOf(paid.id)).at(-1)).toBe("payment.reverted");
});

// BUG: Ponder rolls a reorg back by deleting the rows above the common ancestor and leaves its
// checkpoint where it was until it has read the new branch: for a block or so the head said
// "read" over evidence that was gone, and a reconcile then wrote `payment.reverted` (or, past the
// deadline, `payment.expired`) for a transaction the new branch carried again a moment later.
test("rows the indexer removed under an unmoved checkpoint (a reorg rolled back): answers stand until it moves past", async () => {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    await noteIndexedRemovals(client, schema);
    const paid = await deposit(1_000_000n);
    const [mined] = paid.transfers;
    await indexer({ safe: mined!.block - 50, latest: mined!.block + 1, ready: true });
    await reconcilePayments(handle.db, config, [paid.id]);
    expect(await findPayment(handle.db, paid.id)).toMatchObject({ status: "confirming", amountReceived: 1_000_000n });
    const before = await eventsOf(paid.id);

    await dropTransfer(mined!.txHash); // the rollback; the checkpoint stays
    expect((await indexedBlocks(handle.db, schema)).rereading?.has(String(CHAIN.chainId))).toBe(true);
    await reconcilePayments(handle.db, config, [paid.id]);
    expect(await findPayment(handle.db, paid.id)).toMatchObject({ status: "confirming", amountReceived: 1_000_000n });
    expect(await eventsOf(paid.id)).toEqual(before);

    // The new branch carries the transaction again, and the indexer moves on.
    await insertIndexedTransfer(handle.db, schema, { ...CHAIN, blockNumber: mined!.block, txHash: mined!.txHash, token: (await findPayment(handle.db, paid.id))!.tokenAddress, from: "0x01", to: (await findPayment(handle.db, paid.id))!.receiveAddress!, amount: 1_000_000n, at: new Date(Date.now() - 60_000) });
    await indexer({ safe: mined!.block - 50, latest: mined!.block + 2, ready: true });
    expect((await indexedBlocks(handle.db, schema)).rereading?.has(String(CHAIN.chainId))).toBe(false);
    await reconcilePayments(handle.db, config, [paid.id]);
    expect(await findPayment(handle.db, paid.id)).toMatchObject({ status: "completed" });
    expect(await eventsOf(paid.id)).not.toContain("payment.reverted");
  } finally {
    await client.query(`drop trigger if exists stablepay_note_removed on "${schema}".token_transfer; drop trigger if exists stablepay_note_removed on "${schema}".settlement_payment`);
    await client.end();
  }
});

// BUG: the indexer redeployed from a later START_BLOCK (as the docs advised: "before the oldest
// open payment") holds no rows for payments that ended before it: the next reconcile of one
// (a refund request, a recheck after Redis lost its prompts) reverted a final, swept payment.
test("a swept payment whose completing transfer is gone from the read model keeps its answer: a sweep waits for finality, no reorg took it", async () => {
  const paid = await deposit(1_000_000n);
  const block = paid.transfers[0]!.block;
  await indexer({ safe: block - 50, latest: block + 5, ready: true });
  await reconcilePayments(handle.db, config, [paid.id]);
  const completed = await findPayment(handle.db, paid.id);
  expect(completed).toMatchObject({ status: "completed" });
  await handle.db.execute(sql`
    insert into transfers_out (payment_id, kind, status, chain_id, token_address, to_address, amount, tx_hash, block_number)
    values (${paid.id}, 'sweep', 'confirmed', ${String(CHAIN.chainId)}, ${completed!.tokenAddress}, '0x02', 1000000, '0xsweep', ${block + 4})`);
  const told = await eventsOf(paid.id);
  await dropTransfer(paid.transfers[0]!.txHash);
  await indexer({ safe: block - 50, latest: block + 6, ready: true });
  const run = await reconcilePayments(handle.db, config, [paid.id]);
  expect(run.get(paid.id)!.changed).toBe(false);
  expect(await findPayment(handle.db, paid.id)).toMatchObject({ status: "completed", amountReceived: 1_000_000n });
  expect(await eventsOf(paid.id)).toEqual(told);
});

test("late money keeps the block it came in as the payment's newest evidence; a reorg's removal takes it off what is owed back", async () => {
  const paid = await deposit(1_000_000n, 300_000n); // the amount, then an excess
  const [first, extra] = paid.transfers;
  await indexer({ safe: first!.block - 50, latest: extra!.block + 5, ready: true });
  await reconcilePayments(handle.db, config, [paid.id]);
  expect(await findPayment(handle.db, paid.id)).toMatchObject({ status: "completed", excessOwed: 300_000n, completingBlock: BigInt(first!.block), evidenceBlock: BigInt(extra!.block) });
  await dropTransfer(extra!.txHash);
  await indexer({ safe: first!.block - 50, latest: extra!.block + 6, ready: true });
  await reconcilePayments(handle.db, config, [paid.id]);
  expect(await findPayment(handle.db, paid.id)).toMatchObject({ status: "completed", amountReceived: 1_000_000n, excessOwed: 0n, evidenceBlock: BigInt(first!.block) });
});

// BUG: a submitted transfer was left out only when ingest held the same log (block and log
// index aside): re-mined lower by a reorg, under another log index, it counted twice.
test("a submitted transaction that ingest holds under another block and log index (re-mined by a reorg) counts once", async () => {
  const paid = await deposit(1_000_000n);
  const [mined] = paid.transfers;
  await indexer({ safe: mined!.block - 50, latest: mined!.block + 1, ready: true });
  // Submitted when it sat in a later block, at another log index; ingest has not reached that block.
  await insertSubmissions(handle.db, [
    { paymentId: paid.id, chainId: String(CHAIN.chainId), txHash: mined!.txHash, logIndex: 7, blockNumber: BigInt(mined!.block + 5), blockTimestamp: new Date(Date.now() - 30_000), amount: 1_000_000n },
  ]);
  await reconcilePayments(handle.db, config, [paid.id]);
  expect(await findPayment(handle.db, paid.id)).toMatchObject({ amountReceived: 1_000_000n, excessOwed: 0n });
});

// BUG: a transaction submitted, re-mined by a reorg under another log index and submitted
// again counted twice while ingest was below both blocks: a partial payment read as paid.
test("a transaction submitted again after a reorg re-mined it under another log index counts once: its newest verification", async () => {
  const paid = await deposit(); // nothing ingested
  const payment = (await findPayment(handle.db, paid.id))!;
  await indexer({ safe: blocks - 50, latest: blocks, ready: true });
  const submission = (logIndex: number, blockNumber: number) => ({
    paymentId: paid.id, chainId: String(CHAIN.chainId), txHash: "0xfeed01", logIndex, blockNumber: BigInt(blockNumber), blockTimestamp: new Date(Date.now() - 30_000), amount: (payment.amount * 6n) / 10n,
  });
  await insertSubmissions(handle.db, [submission(5, blocks + 5)]);
  await Bun.sleep(5); // a later verification
  await insertSubmissions(handle.db, [submission(2, blocks + 6)]);
  await reconcilePayments(handle.db, config, [paid.id]);
  expect(await findPayment(handle.db, paid.id)).toMatchObject({ status: "pending", amountReceived: (payment.amount * 6n) / 10n });
  expect(await eventsOf(paid.id)).not.toContain("payment.confirmed");
});

test("a reconcile meeting the indexer's start-up migration gives way: the indexer is never the deadlock's victim", async () => {
  const paid = await deposit(1_000_000n);
  await indexer({ safe: paid.transfers[0]!.block - 50, latest: paid.transfers[0]!.block + 5, ready: true });
  const connect = async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    return client;
  };
  const [ponder, other] = [await connect(), await connect()];
  /** Until someone waits for a lock on `table`, or `settled` says there is no need to. */
  const waitingOn = async (table: string, settled = () => false) => {
    for (const deadline = Date.now() + 5_000; Date.now() < deadline && !settled(); await Bun.sleep(2)) {
      const { rows } = await other.query("select count(*)::int as n from pg_locks l join pg_class c on c.oid = l.relation where c.relname = $1 and not l.granted", [table]);
      if (rows[0].n > 0) return;
    }
    if (!settled()) throw new Error(`nobody came to wait on ${table}`);
  };
  const t = (name: string) => `${schema}.${name}`;
  try {
    // The indexer's migration holds its transfers table; the reconcile reads the checkpoint
    // table (keeping its lock) and is held up by a read of ours before it reaches the transfers…
    await ponder.query(`begin; lock table ${t("token_transfer")} in access exclusive mode`);
    await other.query("begin; lock table payment_submissions in access exclusive mode");
    const reconciling = reconcilePayments(handle.db, config, [paid.id]).then(
      () => "reconciled",
      (error: { errno?: string; code?: string; cause?: { errno?: string; code?: string } }) => error.cause?.errno ?? error.cause?.code ?? error.errno ?? error.code,
    );
    await waitingOn("payment_submissions");
    // …while the migration asks for the checkpoint table: it waits for the reconcile…
    let settled = false;
    const migrating = ponder.query(`lock table ${t('"_ponder_checkpoint"')} in access exclusive mode`).then(
      () => "migrated",
      (error: { code?: string }) => error.code,
    ).finally(() => (settled = true));
    await waitingOn("_ponder_checkpoint", () => settled);
    // …and the reconcile goes on to the transfers table: a cycle, in which the indexer waited first.
    await other.query("commit");
    expect(await migrating).toBe("migrated");
    await ponder.query("commit");
    // The reconcile gave way (55P03: retried as a failed job is, a 503 from the API).
    expect(await reconciling).toBe("55P03");
    await reconcilePayments(handle.db, config, [paid.id]);
    expect(await findPayment(handle.db, paid.id)).toMatchObject({ status: "completed" });
  } finally {
    await ponder.query("rollback").catch(() => {});
    await other.query("rollback").catch(() => {});
    await Promise.all([ponder.end(), other.end()]);
  }
});

// BUG: a reconcile held while the indexer re-read (its answer standing) was never asked for
// again: dispatch's cursor had moved past the payment's evidence, and the recheck does not look
// at a payment showing no money before its expiry. The customer's payment stayed pending that long.
test("the reconcile job fails (retried) while a payment is held for its indexer re-reading; once ready, the payment completes", async () => {
  const paid = await deposit(1_000_000n);
  const block = paid.transfers[0]!.block;
  const prompts = createPrompts({ ...config, redis: { ...config.redis, prefix: `reread-${crypto.randomUUID()}` } });
  const run = () => reconcileJob(handle.db, config, prompts, createLogger({ level: "silent" }))({ name: "reconcile", data: { paymentIds: [paid.id] } } as never);
  try {
    await indexer({ safe: block - 50, latest: block + 10, ready: false });
    const held = await run().then(() => null, (error: Error) => error);
    expect(held).toBeInstanceOf(ServiceUnavailableError);
    expect((held as ServiceUnavailableError).retryable).toBe(true);
    expect(await findPayment(handle.db, paid.id)).toMatchObject({ status: "pending", amountReceived: 0n });
    await indexer({ safe: block - 50, latest: block + 10, ready: true });
    expect(await run()).toMatchObject({ reconciled: 1, changed: 1 });
    expect(await findPayment(handle.db, paid.id)).toMatchObject({ status: "completed" });
  } finally {
    await prompts.close();
  }
});

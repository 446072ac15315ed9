import { buildConfig } from "../../plugins/config.ts";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import pg from "pg";
import { type Config } from "../../config/index.ts";
import { syncAnalytics } from "../../db/analyticsSource.ts";
import { createDb, queryRows, type DbHandle } from "../../db/client.ts";
import { createMerchant } from "../../db/merchants.ts";
import { paymentEvents, transfersOut, webhookDeliveries } from "../../db/schema/index.ts";
import { reconcilePayments } from "../../reconcile/index.ts";
import { createTestDatabase, type TestDatabase } from "../../harness/database.ts";
import { ANVIL_USDC, anvilNetwork, createPonderCheckpointTable, setIndexedBlock } from "../../harness/fixtures.ts";
import { createIndexedTables, insertIndexedSettlement, insertIndexedTransfer } from "../../harness/indexedTables.ts";
import { insertPaymentRows, paymentRowFactory } from "../../harness/paymentRows.ts";

/**
 * Every query documented in docs/analytics.md, run against known rows: payments whose
 * state the real reconcile computed from hand-written indexed evidence, a sweep, webhook
 * deliveries. Values are compared as Postgres prints them (text), like the doc shows them.
 */
const doc = readFileSync(new URL("../../docs/analytics.md", import.meta.url), "utf8");
const documentedQueries = [...doc.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());

const VIEWS = "onchain";
const T0 = Date.parse("2026-03-02T09:00:00Z");
const at = (minutes: number, seconds = 0) => new Date(T0 + minutes * 60_000 + seconds * 1000);
const id = (n: number) => `00000000-0000-4000-8000-00000000000${n}`;
const SETTLEMENT = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";
const WALLET = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const payer = (n: number) => `0x${String(n).repeat(40)}`;
const address = (n: number) => `0x${"a".repeat(39)}${n}`;

let database: TestDatabase;
let handle: DbHandle;
let client: pg.Client;
let config: Config;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 3 });
  config = buildConfig(
    { APP_ENV: "test", DATABASE_URL: database.url, INDEXER_VIEWS_SCHEMA: VIEWS },
    { extraNetworks: [anvilNetwork("http://127.0.0.1:1", { requiredConfirmations: 3, settlementContract: SETTLEMENT })] },
  );
  // Every value as the text Postgres sends, as psql prints it.
  client = new pg.Client({ connectionString: database.url, types: { getTypeParser: () => (value: string) => value } });
  await client.connect();
  await syncAnalytics(client, { viewsSchema: VIEWS, networks: config.networks });

  const acme = await createMerchant(handle.db, { name: "Acme" });
  const globex = await createMerchant(handle.db, { name: "Globex" });
  const row = paymentRowFactory(config);
  const usdc = (n: number) => BigInt(Math.round(n * 1e6));
  const payment = (n: number, over: Parameters<typeof row>[1]) =>
    row(acme.id, { id: id(n), createdAt: at(n - 1), updatedAt: at(n - 1), expiresAt: at(n - 1 + 30), merchantWallet: WALLET, ...over });
  await insertPaymentRows(handle.db, [
    payment(1, { kind: "deposit", amount: usdc(12.5), receiveAddress: address(1), orderId: "A-1" }),
    payment(2, { kind: "payment", amount: usdc(20), receiveAddress: address(2), contractAddress: SETTLEMENT, orderId: "A-2" }),
    payment(3, { kind: "deposit", amount: usdc(10), receiveAddress: address(3), orderId: "A-3" }),
    payment(4, { kind: "deposit", amount: usdc(10), receiveAddress: address(4), orderId: "A-4" }),
    payment(5, { kind: "deposit", amount: usdc(10), receiveAddress: address(5), orderId: "A-5" }),
    { ...payment(6, { kind: "deposit", amount: usdc(1), receiveAddress: address(6) }), merchantId: globex.id },
  ]);

  await createPonderCheckpointTable(handle.db, VIEWS);
  await createIndexedTables(handle.db, VIEWS);
  const transfer = (block: number, n: number, amount: number, time: Date, tx = `0xt${block}`) =>
    insertIndexedTransfer(handle.db, VIEWS, { chainId: 31337, blockNumber: block, txHash: tx, token: ANVIL_USDC, from: payer(n), to: address(n), amount: usdc(amount), at: time });
  await transfer(100, 1, 12.5, at(0, 40)); // paid exactly
  await insertIndexedSettlement(handle.db, VIEWS, {
    chainId: 31337, paymentId: id(2), payer: payer(2), token: ANVIL_USDC, merchant: WALLET, amount: usdc(20), fee: 0n, contract: SETTLEMENT, blockNumber: 101, txHash: "0xt101", at: at(1, 50),
  }); // paid through the contract
  await transfer(102, 3, 5, at(2, 60)); // half, then expired
  await transfer(103, 4, 10, at(3, 30)); // paid…
  await transfer(104, 4, 2, at(3, 45)); // …and 2 more
  await transfer(105, 5, 3, at(40)); // after its expiry
  await setIndexedBlock(handle.db, VIEWS, { name: "anvil", chainId: 31337 }, 110);
  await reconcilePayments(handle.db, config, [1, 2, 3, 4, 5, 6].map(id), at(45));

  // Payment 1's deposit address was swept a minute after it completed.
  await handle.db.insert(transfersOut).values({
    paymentId: id(1), kind: "sweep", status: "confirmed", chainId: "31337", tokenAddress: ANVIL_USDC, toAddress: WALLET, amount: usdc(12.5), updatedAt: at(46),
  });

  const [acmeEvent] = await handle.db.insert(paymentEvents).values({ id: id(7), merchantId: acme.id, mode: "test", paymentId: id(1), type: "payment.completed", payload: {} }).returning();
  const [globexEvent] = await handle.db.insert(paymentEvents).values({ id: id(8), merchantId: globex.id, mode: "test", paymentId: id(6), type: "payment.created", payload: {} }).returning();
  const delivery = (merchantId: string, eventId: string, status: "pending" | "delivered" | "failed" | "disabled", attempts: number) =>
    ({ merchantId, eventId, mode: "test" as const, url: "https://shop.example/webhooks", status, attempts });
  await handle.db.insert(webhookDeliveries).values([
    delivery(acme.id, acmeEvent!.id, "delivered", 1),
    delivery(acme.id, acmeEvent!.id, "delivered", 3),
    delivery(acme.id, acmeEvent!.id, "failed", 11),
    delivery(acme.id, acmeEvent!.id, "pending", 2),
    delivery(globex.id, globexEvent!.id, "disabled", 1),
  ]);
});

afterAll(async () => {
  await client?.end();
  await handle?.close();
  await database?.drop();
});

/** What each documented query returns on these rows, in the order the doc shows them. */
const expected: string[][][] = [
  // Payments with their on-chain evidence.
  [
    [id(1), "anvil", "USDC", "transfer", "0xt100", "100", payer(1), "12.5", "11", "f", "t", "completed"],
    [id(2), "anvil", "USDC", "settlement", "0xt101", "101", payer(2), "20", "10", "f", "t", "completed"],
    [id(3), "anvil", "USDC", "transfer", "0xt102", "102", payer(3), "5", "9", "f", "f", "expired"],
    [id(4), "anvil", "USDC", "transfer", "0xt103", "103", payer(4), "10", "8", "f", "t", "completed"],
    [id(4), "anvil", "USDC", "transfer", "0xt104", "104", payer(4), "2", "7", "f", "f", "completed"],
    [id(5), "anvil", "USDC", "transfer", "0xt105", "105", payer(5), "3", "6", "t", "f", "expired"],
  ],
  // Daily volume.
  [["2026-03-02", "test", "anvil", "USDC", "3", "42.5", "44.5"]],
  // Creation → completion (the reconcile at +45 min) and → settlement (payment 1's sweep at +46 min; the contract at completion).
  [
    ["anvil", "deposit", "2", "2610.0", "2700.000", "2760.0", "1"],
    ["anvil", "payment", "1", "2640.0", "2640.000", "2640.0", "1"],
  ],
  // Underpaid, overpaid, late.
  [
    [id(3), "expired", "10", "5", "t", "f", "f", "5"],
    [id(4), "completed", "10", "12", "f", "t", "f", "2"],
    [id(5), "expired", "10", "3", "f", "f", "t", "3"],
  ],
  // Webhooks per merchant.
  [
    ["Acme", "test", "4", "2", "1", "1", "0", "17"],
    ["Globex", "test", "1", "0", "0", "0", "1", "1"],
  ],
  // Outcomes per network.
  [
    ["anvil", "completed", "3", "0", "1", "0"],
    // Globex's payment expired with nothing paid.
    ["anvil", "expired", "3", "1", "0", "1"],
  ],
  // The indexer's checkpoint.
  [["31337", "110"]],
];

test("the doc's queries are the ones this test knows", () => {
  expect(documentedQueries).toHaveLength(expected.length);
});

test.each(documentedQueries.map((query, i) => [i + 1, query] as const))("documented query %d returns the known rows", async (i, query) => {
  const result = await client.query({ text: query, rowMode: "array" });
  expect(result.rows).toEqual(expected[i - 1]!);
});

test("analytics.payments: timings and evidence columns of a completed deposit", async () => {
  const { rows } = await client.query(
    `select status, completed_via, completing_tx_hash, completing_block, confirmations, detected_at, completed_at, settled_at,
            seconds_to_completion, seconds_to_settlement, excess_owed, late_amount
     from analytics.payments where payment_id = $1`,
    [id(1)],
  );
  expect(rows).toEqual([
    {
      status: "completed",
      completed_via: "transfer",
      completing_tx_hash: "0xt100",
      completing_block: "100",
      confirmations: "11",
      detected_at: "2026-03-02 09:00:40+00",
      completed_at: "2026-03-02 09:45:00+00",
      settled_at: "2026-03-02 09:46:00+00",
      seconds_to_completion: "2700.000",
      seconds_to_settlement: "2760.000",
      excess_owed: "0",
      late_amount: "0",
    },
  ]);
});

test("before the indexer has created its tables, the evidence view is empty, not an error", async () => {
  await syncAnalytics(client, { viewsSchema: "not_indexed_yet", networks: config.networks });
  try {
    expect((await client.query("select count(*) from analytics.payment_evidence")).rows).toEqual([{ count: "0" }]);
    // The service's own views do not depend on the indexer.
    expect((await client.query("select count(*) from analytics.payments")).rows).toEqual([{ count: "6" }]);
  } finally {
    await syncAnalytics(client, { viewsSchema: VIEWS, networks: config.networks });
  }
});

test("the indexer may drop and recreate its views (as Ponder does at each deployment) under the analytics views", async () => {
  // Ponder: DROP VIEW IF EXISTS "<views>"."token_transfer" (no CASCADE), then CREATE VIEW.
  await handle.db.execute(sql.raw(`alter table ${VIEWS}.token_transfer rename to token_transfer_v1`));
  await handle.db.execute(sql.raw(`create view ${VIEWS}.token_transfer as select * from ${VIEWS}.token_transfer_v1`));
  await handle.db.execute(sql.raw(`drop view if exists ${VIEWS}.token_transfer`));
  await handle.db.execute(sql.raw(`create view ${VIEWS}.token_transfer as select * from ${VIEWS}.token_transfer_v1`));
  expect((await client.query("select count(*) from analytics.payment_evidence where source = 'transfer'")).rows).toEqual([{ count: "5" }]);
});

test("an analyst needs rights on the analytics schema only", async () => {
  const role = `analyst_${database.name}`;
  await client.query(`create role ${role} nologin`);
  await client.query(`grant usage on schema analytics to ${role}; grant select on all tables in schema analytics to ${role}`);
  try {
    await client.query(`set role ${role}`);
    expect((await client.query("select count(*) from analytics.payment_evidence")).rows).toEqual([{ count: "6" }]);
    expect((await client.query("select count(*) from analytics.payments")).rows).toEqual([{ count: "6" }]);
    await expect(client.query("select count(*) from payments")).rejects.toThrow("permission denied");
  } finally {
    await client.query("reset role");
    await client.query(`drop owned by ${role}; drop role ${role}`);
  }
});

test("evidence an operator's replay recorded counts once beside the indexer's; Solana credits are evidence too", async () => {
  const [acme] = await queryRows<{ merchant_id: string }>(handle.db, sql`select merchant_id from payments where id = ${id(1)}`);
  const row = paymentRowFactory(config);
  const solanaPayment = { ...row(acme!.merchant_id, { id: id(9), kind: "deposit", amount: 4_000_000n, receiveAddress: "So1anaDeposit1111111111111111111111111111111", expiresAt: at(60) }), chainId: "solana:local" };
  await insertPaymentRows(handle.db, [solanaPayment]);
  const replayed = (n: number, tx: string) =>
    sql`insert into replayed_token_transfer (id, chain_id, block_number, block_hash, tx_hash, log_index, token, "from", "to", amount, timestamp)
        values (${`31337:${tx}:0`}, 31337, 106, '0xb106', ${tx}, 0, ${ANVIL_USDC.toLowerCase()}, ${payer(n)}, ${address(n)}, 1000000, ${String(at(3, 50).getTime() / 1000)})`;
  try {
    await handle.db.execute(replayed(4, "0xr106")); // the indexer missed it
    await handle.db.execute(replayed(4, "0xt103")); // the indexer has it too: counted once
    await handle.db.execute(sql`insert into solana_credits (chain_id, signature, account, payment_id, source, owner, mint, token_program, amount, slot, block_time, account_index, finalized, found_by)
      values ('solana:local', 'sig1', 'ata1', ${id(9)}, 'transfer', 'owner1', 'mint1', 'spl', 4000000, 77, ${at(5)}, 1, true, 'poll')`);
    await handle.db.execute(sql`insert into solana_ingest_heads (chain_id, confirmed_slot, finalized_slot) values ('solana:local', 90, 60)`);
    const rows = (await client.query(`select payment_id, tx_hash, block_number, amount, confirmations from analytics.payment_evidence where payment_id in ('${id(4)}', '${id(9)}') order by block_number`)).rows;
    expect(rows).toEqual([
      { payment_id: id(9), tx_hash: "sig1", block_number: "77", amount: "4000000", confirmations: "14" },
      { payment_id: id(4), tx_hash: "0xt103", block_number: "103", amount: "10000000", confirmations: "8" },
      { payment_id: id(4), tx_hash: "0xt104", block_number: "104", amount: "2000000", confirmations: "7" },
      { payment_id: id(4), tx_hash: "0xr106", block_number: "106", amount: "1000000", confirmations: "5" },
    ]);
  } finally {
    await handle.db.execute(sql`delete from replayed_token_transfer`);
    await handle.db.execute(sql`delete from solana_ingest_heads`);
    await handle.db.execute(sql`delete from payments where id = ${id(9)}`);
  }
});

// BUG: `amount / 10 ^ decimals` took Postgres' default division scale (16 significant places):
// an 18-decimal token's one-wei underpayment read as the exact amount. And a cross-chain payment,
// paid to the merchant's wallet by the bridge's fill, was never settled.
const BRIDGED = "00000000-0000-4000-8000-0000000000bb";
test("an 18-decimal token's amounts are exact to the wei; a bridge-completed payment is settled when it completes", async () => {
  const [acme] = await queryRows<{ merchant_id: string }>(handle.db, sql`select merchant_id from payments where id = ${id(1)}`);
  const row = paymentRowFactory(config);
  const bridged = {
    ...row(acme!.merchant_id, { id: BRIDGED, kind: "deposit", amount: 99_990_000_000_000_000_001n, receiveAddress: "0x00000000000000000000000000000000000000bb", expiresAt: at(60) }),
    tokenSymbol: "WEI18",
    tokenDecimals: 18,
    status: "completed" as const,
    completedVia: "bridge" as const,
    amountReceived: 99_990_000_000_000_000_001n,
    confirmedAt: at(7),
  };
  await insertPaymentRows(handle.db, [bridged]);
  try {
    const [payment] = (await client.query(`select amount_decimal, received_decimal, completed_at, settled_at from analytics.payments where payment_id = '${BRIDGED}'`)).rows;
    expect(payment).toMatchObject({ amount_decimal: "99.990000000000000001", received_decimal: "99.990000000000000001" });
    expect(payment.settled_at).toBe(payment.completed_at);
    const [day] = (await client.query(`select amount_decimal, received_decimal from analytics.daily_volume where token = 'WEI18'`)).rows;
    expect(day).toEqual({ amount_decimal: "99.990000000000000001", received_decimal: "99.990000000000000001" });
  } finally {
    await handle.db.execute(sql`delete from payments where id = ${BRIDGED}`);
  }
});

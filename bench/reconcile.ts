/**
 * Benchmark (not a test): `bun bench/reconcile.ts [payments=2000] [rounds=5] [history=100000] [concurrency=1]`.
 * The reconcile job alone, without a chain: a database holding N payments, indexed
 * evidence in Ponder's table shapes (a transfer paying each one in full, deep enough
 * to complete, among `history` unrelated indexed transfers) and one webhook endpoint
 * taking every event. Each round forgets the payments' state and reconciles all N
 * through `reconcilePayments` in batches of 250 (what jobs/enqueue.ts gives one job),
 * `concurrency` batches at a time (the worker runs up to 8 reconcile jobs at once), so
 * every payment is written with its events (detected, confirmed, completed) and one
 * delivery per event. Prints payments/s per round, and the same again with nothing
 * to change (the no-op recompute).
 */
import { buildConfig } from "../plugins/config.ts";
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";

import { createDb, queryRows } from "../db/client.ts";
import { createMerchant } from "../db/merchants.ts";
import { insertWebhookEndpoint } from "../db/webhookEndpoints.ts";
import { reconcilePayments } from "../reconcile/index.ts";
import { createTestDatabase } from "../harness/database.ts";
import { anvilNetwork, createPonderCheckpointTable, setIndexedBlock } from "../harness/fixtures.ts";
import { insertPaymentRows, paymentRowFactory } from "../harness/paymentRows.ts";

const N = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 5);
const HISTORY = Number(process.argv[4] ?? 100_000);
const CONCURRENCY = Number(process.argv[5] ?? 1);
const BATCH = 250;
const schema = "bench_views";
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const database = await createTestDatabase();
const handle = createDb(database.url);
const { db } = handle;
try {
  const config = buildConfig(
    { APP_ENV: "test", DATABASE_URL: database.url, INDEXER_VIEWS_SCHEMA: schema, LOG_LEVEL: "silent" },
    { extraNetworks: [anvilNetwork("http://127.0.0.1:1", { requiredConfirmations: 3 })] },
  );
  const merchantId = (await createMerchant(db, { name: "Bench" })).id;
  await insertWebhookEndpoint(db, config.secrets, { merchantId, mode: "test", url: "https://example.com/hooks", events: ["*"] });

  // Ponder's tables and indexes (indexer/ponder.schema.ts), as the views schema shows them.
  await createPonderCheckpointTable(db, schema);
  await db.execute(sql.raw(`
    create table ${schema}.token_transfer (
      id text primary key, chain_id integer not null, block_number numeric(78,0) not null, block_hash text not null, tx_hash text not null,
      log_index integer not null, token text not null, "from" text not null, "to" text not null, amount numeric(78,0) not null, timestamp numeric(78,0) not null);
    create index on ${schema}.token_transfer ("to", chain_id);
    create index on ${schema}.token_transfer (chain_id, block_number);
    create table ${schema}.settlement_payment (
      id text primary key, chain_id integer not null, payment_id text not null, payer text not null, token text not null, merchant text not null,
      amount numeric(78,0) not null, fee numeric(78,0) not null, contract text not null, block_number numeric(78,0) not null, block_hash text not null,
      tx_hash text not null, log_index integer not null, timestamp numeric(78,0) not null, transfers jsonb);
    create index on ${schema}.settlement_payment (payment_id);
    create index on ${schema}.settlement_payment (chain_id, block_number);`));

  const row = paymentRowFactory(config);
  const hex = (bytes: number) => `0x${randomBytes(bytes).toString("hex")}`;
  const rows = Array.from({ length: N }, (_, i) =>
    row(merchantId, { receiveAddress: hex(20), contractAddress: hex(20), orderId: `bench-${i}`, metadata: { order: String(i) } }),
  );
  await insertPaymentRows(db, rows);
  const block = 10;
  const now = Math.floor(Date.now() / 1000);
  for (let i = 0; i < rows.length; i += 500) {
    const values = rows.slice(i, i + 500).map((p, j) => {
      const tx = hex(32);
      return sql`(${`31337:${tx}:${j}`}, 31337, ${block}, ${hex(32)}, ${tx}, ${j}, ${p.tokenAddress.toLowerCase()}, ${hex(20)}, ${p.receiveAddress!.toLowerCase()}, ${p.amount.toString()}, ${now})`;
    });
    await db.execute(sql`insert into ${sql.identifier(schema)}.token_transfer values ${sql.join(values, sql`, `)}`);
  }
  // Other addresses' transfers: what an indexer that has run for a while holds.
  await db.execute(sql`
    insert into ${sql.identifier(schema)}.token_transfer
    select '31337:0x' || md5('tx' || g) || ':0', 31337, ${block - 1}, '0x' || md5('b' || g), '0x' || md5('tx' || g), 0, ${rows[0]!.tokenAddress.toLowerCase()},
      '0x' || left(md5('f' || g), 40), '0x' || left(md5('t' || g), 40), 1000000, ${now}
    from generate_series(1, ${HISTORY}) g`);
  await setIndexedBlock(db, schema, { name: "anvil", chainId: 31337 }, block + 5);
  await db.execute(sql`analyze`);

  const ids = rows.map((p) => p.id!);
  const reconcileAll = async () => {
    const t = performance.now();
    const batches = Array.from({ length: Math.ceil(ids.length / BATCH) }, (_, i) => ids.slice(i * BATCH, (i + 1) * BATCH));
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      for (let batch = batches.shift(); batch; batch = batches.shift()) await reconcilePayments(db, config, batch);
    }));
    return N / ((performance.now() - t) / 1000);
  };

  const written: number[] = [];
  const unchanged: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    await db.execute(sql`truncate payment_events cascade`);
    await db.execute(sql`update payments set status = 'pending', amount_received = 0, amount_remaining = amount, confirmations = 0,
      completing_tx_hash = null, completing_block = null, completed_via = null, detected_at = null, confirmed_at = null`);
    await db.execute(sql`vacuum analyze payments`);
    written.push(await reconcileAll());
    unchanged.push(await reconcileAll());
    const [counts] = await queryRows<{ completed: string; events: string; deliveries: string }>(
      db,
      sql`select (select count(*) from payments where status = 'completed')::text as completed,
        (select count(*) from payment_events)::text as events, (select count(*) from webhook_deliveries)::text as deliveries`,
    );
    if (Number(counts!.completed) !== N || Number(counts!.events) !== 3 * N || Number(counts!.deliveries) !== 3 * N) {
      throw new Error(`round ${round}: unexpected state ${JSON.stringify(counts)}`);
    }
    console.log(`round ${round + 1}: ${written.at(-1)!.toFixed(0)} payments/s written (3 events + 3 deliveries each), ${unchanged.at(-1)!.toFixed(0)}/s unchanged`);
  }
  console.log(`reconcile ${N} in batches of ${BATCH}, ${CONCURRENCY} at a time, ${HISTORY} other indexed transfers: median ${median(written).toFixed(0)} payments/s written, ${median(unchanged).toFixed(0)}/s unchanged (${ROUNDS} rounds)`);
} finally {
  await handle.close();
  await database.drop();
}

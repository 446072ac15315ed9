import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import pg from "pg";
import { type Config } from "../../../../config/index.ts";
import { createLogger } from "../../../../config/logger.ts";
import { createDb, queryRows, type DbHandle } from "../../../../db/client.ts";
import { createMerchant } from "../../../../db/merchants.ts";
import { reconcilePayments } from "../../../../reconcile/index.ts";
import { indexedBlocks } from "../../../../rails/evm/readModel/indexedBlocks.ts";
import { noteIndexedRemovals } from "../../../../rails/evm/readModel/noteRemovals.ts";
import { commands } from "../../../../scripts/cli/commands.ts";
import { createTestDatabase, type TestDatabase } from "../../../../harness/database.ts";
import { ANVIL_USDC, anvilNetwork, createPonderCheckpointTable, setIndexedBlock } from "../../../../harness/fixtures.ts";
import { insertPaymentRows, paymentRowFactory } from "../../../../harness/paymentRows.ts";
import { buildConfig } from "../../../../plugins/config.ts";

/**
 * `npm run cli -- indexer prune`: what an indexer that recorded every transfer left behind
 * goes; every payment's evidence stays, and reconciling gives the same answers after.
 */
let database: TestDatabase;
let handle: DbHandle;
let config: Config;
const schema = "prune_views";
const token = ANVIL_USDC.toLowerCase();
const run = (flags: Record<string, boolean> = {}) =>
  commands["indexer prune"]!({ db: handle.db, config, databaseUrl: database.url, logger: createLogger({ level: "silent" }) }, flags);

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 3 });
  config = buildConfig(
    { APP_ENV: "test", DATABASE_URL: database.url, INDEXER_VIEWS_SCHEMA: schema },
    { extraNetworks: [anvilNetwork("http://127.0.0.1:1", { requiredConfirmations: 3 })] },
  );
  await createPonderCheckpointTable(handle.db, schema);
  await handle.db.execute(sql.raw(`
    create table ${schema}.token_transfer (
      id text primary key, chain_id integer not null, block_number numeric(78,0) not null, block_hash text not null, tx_hash text not null,
      log_index integer not null, token text not null, "from" text not null, "to" text not null, amount numeric(78,0) not null, timestamp numeric(78,0) not null)`));
  await setIndexedBlock(handle.db, schema, { name: "anvil", chainId: 31337 }, 5_000);
});

afterAll(async () => {
  await handle.close();
  await database.drop();
});

async function indexTransfer(block: number, to: string, n: number) {
  await handle.db.execute(sql`
    insert into ${sql.identifier(schema)}.token_transfer values
      (${`31337:0x${block.toString(16)}:${n}`}, 31337, ${block}, ${`0xb${block}`}, ${`0xt${block}${n}`}, ${n}, ${token}, '0xfrom', ${to.toLowerCase()}, 1000000, ${Math.floor(Date.now() / 1000)})`);
}

const addressesIndexed = async () =>
  (await queryRows<{ to: string }>(handle.db, sql`select "to" from ${sql.identifier(schema)}.token_transfer order by block_number, log_index`)).map((r) => r.to);

test("removes old transfers that pay no payment; keeps every payment's rows and the recent ones; answers stay the same; a second run removes nothing", async () => {
  const merchantId = (await createMerchant(handle.db, { name: "Prune" })).id;
  const paid = "0x1111111111111111111111111111111111111111";
  const paidLate = "0x2222222222222222222222222222222222222222";
  const rows = paymentRowFactory(config);
  const [a, b] = await insertPaymentRows(handle.db, [rows(merchantId, { receiveAddress: paid }), rows(merchantId, { receiveAddress: paidLate })]);
  await indexTransfer(100, paid, 0); // a payment's evidence, long final
  await indexTransfer(100, "0x3333333333333333333333333333333333333333", 1); // someone else's transfer, old: goes
  await indexTransfer(200, "0x4444444444444444444444444444444444444444", 0); // old: goes
  await indexTransfer(4_900, paidLate, 0); // a payment's, recent
  await indexTransfer(4_950, "0x5555555555555555555555555555555555555555", 0); // someone else's, but too recent to touch
  const before = await reconcilePayments(handle.db, config, [a!.id!, b!.id!]);

  expect(await run({ "dry-run": true })).toBe("evm: would remove 2 indexed rows that are no payment's evidence; 3 stay");
  expect(await addressesIndexed()).toHaveLength(5);

  expect(await run()).toBe("evm: removed 2 indexed rows that are no payment's evidence; 3 stay");
  expect(await addressesIndexed()).toEqual([paid, paidLate, "0x5555555555555555555555555555555555555555"]);

  const after = await reconcilePayments(handle.db, config, [a!.id!, b!.id!]);
  for (const id of [a!.id!, b!.id!]) {
    expect(after.get(id)!.after).toEqual(before.get(id)!.after);
    expect(after.get(id)!.changed).toBe(false);
  }
  expect(after.get(a!.id!)!.after.amountReceived).toBe(1_000_000n);

  expect(await run()).toBe("evm: removed 0 indexed rows that are no payment's evidence; 3 stay");
});

// BUG: the prune's delete fired the trigger that notes a reorg's rollback, so the chain read as
// being re-read: every payment's answer held, refunds held, until the indexer moved its
// checkpoint (never, while it was stopped for the prune).
test("a prune is no reorg: the chain is not taken as re-read after it; a rollback's delete still is", async () => {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    // A function from before the prune's mark is replaced in place.
    await client.query(`create or replace function stablepay_note_removed() returns trigger language plpgsql as $$ begin return null; end $$`);
    await client.query(`create trigger stablepay_note_removed after delete on ${schema}.token_transfer referencing old table as removed_rows for each statement execute function stablepay_note_removed()`);
    await noteIndexedRemovals(client, schema);
    const rereading = async () => (await indexedBlocks(handle.db, schema)).rereading?.has("31337");
    await indexTransfer(300, "0x6666666666666666666666666666666666666666", 0);
    expect(await rereading()).toBe(false);
    expect(await run()).toBe("evm: removed 1 indexed rows that are no payment's evidence; 3 stay");
    expect(await rereading()).toBe(false);

    await indexTransfer(4_990, "0x7777777777777777777777777777777777777777", 0);
    await handle.db.execute(sql`delete from ${sql.identifier(schema)}.token_transfer where block_number = 4990`); // the indexer's rollback
    expect(await rereading()).toBe(true);
  } finally {
    await handle.db.execute(sql`delete from indexed_removals`);
    await client.query(`drop trigger if exists stablepay_note_removed on ${schema}.token_transfer`);
    await client.end();
  }
});

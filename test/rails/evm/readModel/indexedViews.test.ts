import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import pg from "pg";
import { buildConfig } from "../../../../plugins/config.ts";
import { createLogger } from "../../../../config/logger.ts";
import { createDb, queryRows, type DbHandle } from "../../../../db/client.ts";
import { pruneUnreferencedTransfers } from "../../../../rails/evm/readModel/pruneUnreferenced.ts";
import { indexedBlocks } from "../../../../rails/evm/readModel/indexedBlocks.ts";
import { syncIndexedViews } from "../../../../rails/evm/readModel/indexedViews.ts";
import { createTestDatabase, type TestDatabase } from "../../../../harness/database.ts";
import { createPonderCheckpointTable, encodePonderCheckpoint } from "../../../../harness/fixtures.ts";
import { createIndexedTables, insertIndexedTransfer } from "../../../../harness/indexedTables.ts";

/**
 * The views schema over one Ponder per EVM chain (rails/evm/readModel/indexedViews.ts): a
 * deployment of the single Ponder keeps reading its schema until each chain's own Ponder is
 * ready, then that chain moves alone; a new chain shows at once; readiness is per chain.
 */
const VIEWS = "iso_views";
const LEGACY = "iso_single";
const SCHEMA = "iso_idx";
let database: TestDatabase;
let handle: DbHandle;
let client: pg.Client;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
  client = new pg.Client({ connectionString: database.url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await handle?.close();
  await database?.drop();
});

/** A Ponder schema holding `chains` at `block`, ready or not, with one transfer per chain tagged `tag`. */
async function ponderSchema(schema: string, chains: number[], state: { block: number; ready: boolean; tag: string }) {
  await createIndexedTables(handle.db, schema);
  await createPonderCheckpointTable(handle.db, schema);
  const s = sql.identifier(schema);
  await handle.db.execute(sql`create table if not exists ${s}."_ponder_meta" (key text primary key, value jsonb not null)`);
  await handle.db.execute(sql`insert into ${s}."_ponder_meta" values ('app', jsonb_build_object('is_ready', ${state.ready ? 1 : 0}::int)) on conflict (key) do update set value = excluded.value`);
  for (const chainId of chains) {
    const checkpoint = encodePonderCheckpoint({ blockTimestamp: 1_700_000_000, chainId, blockNumber: state.block });
    await handle.db.execute(sql`
      insert into ${s}."_ponder_checkpoint" values (${`c${chainId}`}, ${chainId}, ${checkpoint}, ${checkpoint}, ${checkpoint})
      on conflict (chain_name) do update set safe_checkpoint = excluded.safe_checkpoint, latest_checkpoint = excluded.latest_checkpoint`);
    await insertIndexedTransfer(handle.db, schema, { chainId, blockNumber: state.block, txHash: `0x${state.tag}${chainId}`, token: "0x01", from: "0x02", to: "0x03", amount: 1n, at: new Date() });
  }
}

const setReady = (schema: string, ready: boolean) =>
  handle.db.execute(sql`update ${sql.identifier(schema)}."_ponder_meta" set value = jsonb_build_object('is_ready', ${ready ? 1 : 0}::int)`);
const sync = (chainIds: string[]) => syncIndexedViews(client, { schema: SCHEMA, viewsSchema: VIEWS, chainIds });
const seen = async () =>
  (await queryRows<{ chain_id: number; tx_hash: string }>(handle.db, sql`select chain_id, tx_hash from ${sql.identifier(VIEWS)}.token_transfer order by chain_id, tx_hash`)).map(
    (r) => `${r.chain_id}:${r.tx_hash}`,
  );
const viewOid = async () => (await queryRows<{ oid: string }>(handle.db, sql`select to_regclass(${`${VIEWS}.token_transfer`})::oid::text as oid`))[0]!.oid;

test("nothing indexed yet: no views (the tables read as not created)", async () => {
  expect(await sync(["31337", "31338"])).toEqual([]);
  expect(await viewOid()).toBeNull();
});

test("a single Ponder's deployment is adopted, each chain moves to its own Ponder once that one is ready, readiness per chain", async () => {
  // The single Ponder of before, and its own plain views.
  await ponderSchema(LEGACY, [31337, 31338], { block: 100, ready: true, tag: "a" });
  await handle.db.execute(sql`create schema ${sql.identifier(VIEWS)}`);
  for (const table of ["token_transfer", "settlement_payment", "split_payment", "_ponder_checkpoint", "_ponder_meta"]) {
    await handle.db.execute(sql.raw(`create view "${VIEWS}"."${table}" as select * from "${LEGACY}"."${table}"`));
  }
  expect(await sync(["31337", "31338"])).toEqual([
    { chainId: "31337", schema: LEGACY },
    { chainId: "31338", schema: LEGACY },
  ]);
  expect(await seen()).toEqual(["31337:0xa31337", "31338:0xa31338"]);

  // Chain 31337's own Ponder re-indexes from START_BLOCK: not ready, so its evidence still comes from the old schema.
  await ponderSchema(`${SCHEMA}_31337`, [31337], { block: 50, ready: false, tag: "b" });
  const before = await viewOid();
  expect(await sync(["31337", "31338"])).toEqual([
    { chainId: "31337", schema: LEGACY },
    { chainId: "31338", schema: LEGACY },
  ]);
  expect(await viewOid()).toBe(before); // unchanged sources: views left alone
  expect(await seen()).toEqual(["31337:0xa31337", "31338:0xa31338"]);

  // Ready: 31337 moves alone; the old schema's rows of 31337 are no longer shown.
  await setReady(`${SCHEMA}_31337`, true);
  expect(await sync(["31337", "31338"])).toEqual([
    { chainId: "31337", schema: `${SCHEMA}_31337` },
    { chainId: "31338", schema: LEGACY },
  ]);
  expect(await seen()).toEqual(["31337:0xb31337", "31338:0xa31338"]);
  expect((await indexedBlocks(handle.db, VIEWS)).get("31337")).toBe(50n);

  // A chain added later shows as soon as its Ponder has created its tables.
  await ponderSchema(`${SCHEMA}_31339`, [31339], { block: 7, ready: false, tag: "c" });
  await sync(["31337", "31338", "31339"]);
  expect(await seen()).toEqual(["31337:0xb31337", "31338:0xa31338", "31339:0xc31339"]);

  // Each Ponder's readiness is its own: 31337's restart (not ready) makes only 31337 re-read.
  await setReady(`${SCHEMA}_31337`, false);
  const heads = await indexedBlocks(handle.db, VIEWS);
  expect([...(heads.rereading ?? [])].sort()).toEqual(["31337", "31339"]);
  expect(heads.get("31338")).toBe(100n);
});

test("`indexer prune` deletes from the chain's own Ponder's table (the union views cannot be written through)", async () => {
  const config = buildConfig({ APP_ENV: "test", DATABASE_URL: database.url, INDEXER_VIEWS_SCHEMA: VIEWS });
  await ponderSchema(`${SCHEMA}_31337`, [31337], { block: 5_000, ready: true, tag: "d" });
  await insertIndexedTransfer(handle.db, `${SCHEMA}_31337`, { chainId: 31337, blockNumber: 10, txHash: "0xold", token: "0x01", from: "0x02", to: "0x0e", amount: 1n, at: new Date() });
  expect(await seen()).toContain("31337:0xold");
  const result = await pruneUnreferencedTransfers({ config, db: handle.db, logger: createLogger({ level: "silent" }) }, { dryRun: false });
  expect(result.removed).toBeGreaterThanOrEqual(1);
  expect(await seen()).not.toContain("31337:0xold");
  // Recent rows (within 1,000 blocks of the head) stay.
  expect(await seen()).toContain("31337:0xd31337");
});

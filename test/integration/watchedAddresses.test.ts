import { afterAll, beforeAll, expect, test } from "bun:test";
import { buildConfig, type Config } from "../../config/index.ts";
import { createDb, type DbHandle } from "../../db/client.ts";
import { createMerchant } from "../../db/merchants.ts";
import { createWatchedAddresses } from "../../rails/evm/ingest/watchedAddresses.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { anvilNetwork } from "../helpers/fixtures.ts";
import { insertPaymentRows, paymentRowFactory } from "../helpers/paymentRows.ts";

/**
 * Which deposit addresses the EVM indexer watches in a block, on a real Postgres: judged by
 * the block's time, so a re-index from an old start block (or an indexer far behind) still
 * records what was paid into them while they were open.
 */
let database: TestDatabase;
let handle: DbHandle;
let config: Config;
let merchantId: string;
const DAY = 86_400_000;
const seconds = (d: Date) => BigInt(Math.floor(d.getTime() / 1000));

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
  config = buildConfig({ APP_ENV: "test", DATABASE_URL: database.url }, { extraNetworks: [anvilNetwork("http://127.0.0.1:1")] });
  merchantId = (await createMerchant(handle.db, { name: "Watched" })).id;
});

afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

// BUG: the window was judged by the indexer's clock: re-indexing (a new indexer schema reads
// again from START_BLOCK) dropped every transfer into a deposit that had expired a week
// before the re-index, and the payments' evidence with it.
test("a deposit is watched in the blocks from its creation to a week past its expiry, whenever the indexer reads them", async () => {
  const createdAt = new Date(Date.now() - 30 * DAY);
  const expiresAt = new Date(createdAt.getTime() + 30 * 60_000);
  const address = "0x00000000000000000000000000000000000a11ce";
  await insertPaymentRows(handle.db, [paymentRowFactory(config)(merchantId, { receiveAddress: address, createdAt, expiresAt })]);
  const watched = createWatchedAddresses(database.url, 7 * 24);
  try {
    const at = (ms: number) => watched.of(31337, seconds(new Date(createdAt.getTime() + ms)));
    expect(await at(60_000)).toEqual([address]); // paid a minute after creation, read a month later
    expect(await at(6 * DAY)).toEqual([address]); // late money, inside the week after expiry
    expect(await at(8 * DAY)).toEqual([]); // past it
    expect(await at(-2 * 3_600_000)).toEqual([]); // before the payment existed
  } finally {
    await watched.close();
  }
});

import { buildConfig } from "../../plugins/config.ts";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { type Config } from "../../config/index.ts";
import { createDb, queryRows, type DbHandle } from "../../db/client.ts";
import { createMerchant } from "../../db/merchants.ts";
import { paymentsToRecheck } from "../../db/paymentsToRevisit.ts";
import { confirmedTransfersAbove, paymentsToSweep } from "../../db/transfersOut.ts";
import { createTestDatabase, type TestDatabase } from "../../harness/database.ts";
import { anvilNetwork } from "../../harness/fixtures.ts";
import { insertPaymentRows, paymentRowFactory } from "../../harness/paymentRows.ts";

/**
 * The recheck runs every 30 s over a history that only grows. Its reads of sweeps owed,
 * completed payments not final yet and confirmed transfers not final yet must walk indexes:
 * each scanned every completed payment (and every sweep) ever made — 1.5 s at 300,000.
 */
let database: TestDatabase;
let handle: DbHandle;
let config: Config;
const HISTORY = 20_000;

beforeAll(async () => {
  database = await createTestDatabase();
  // One connection: the statistics read below are those of the connection that ran the reads.
  handle = createDb(database.url, { max: 1 });
  config = buildConfig({ APP_ENV: "test", DATABASE_URL: database.url }, { extraNetworks: [anvilNetwork("http://127.0.0.1:1")] });
  const merchantId = (await createMerchant(handle.db, { name: "History" })).id;
  const [template] = await insertPaymentRows(handle.db, [
    paymentRowFactory(config)(merchantId, { status: "completed", completedVia: "transfer", completingBlock: 100n, confirmations: 3, receiveAddress: "0x00000000000000000000000000000000000000aa", sweptAt: new Date(), confirmedAt: new Date(Date.now() - 7 * 86_400_000) }),
  ]);
  // A long history of completed, swept, final payments, each with its confirmed sweep.
  await handle.db.execute(sql`
    insert into payments
    select (r).* from (
      -- offset 0 keeps the subquery whole: flattened, \`(…).*\` would run the record function once per column.
      select jsonb_populate_record(null::payments, to_jsonb(t) || jsonb_build_object('id', gen_random_uuid())) as r
      from payments t, generate_series(1, ${HISTORY}) where t.id = ${template!.id!} offset 0) copies`);
  await handle.db.execute(sql`
    insert into transfers_out (payment_id, kind, status, chain_id, token_address, to_address, amount, block_number)
    select id, 'sweep', 'confirmed', chain_id, token_address, merchant_wallet, amount, 100 from payments`);
  await handle.db.execute(sql`analyze`);
}, 60_000);

afterAll(async () => {
  await handle.close();
  await database.drop();
});

async function seqScans(): Promise<Record<string, number>> {
  await handle.db.execute(sql`select pg_stat_force_next_flush()`);
  const rows = await queryRows<{ relname: string; seq_scan: string }>(handle.db, sql`
    select relname, seq_scan::text from pg_stat_user_tables where relname in ('payments', 'transfers_out')`);
  return Object.fromEntries(rows.map((r) => [r.relname, Number(r.seq_scan)]));
}

test("the recheck's reads of a long history walk indexes: no table is scanned whole", async () => {
  const before = await seqScans();
  expect(await paymentsToSweep(handle.db)).toEqual([]);
  expect(await paymentsToRecheck(handle.db, [{ chainId: "31337", finalized: 1_000n, blocks: 3 }])).toEqual([]);
  expect(await confirmedTransfersAbove(handle.db, [{ chainId: "31337", finalized: 1_000n }])).toEqual([]);
  const after = await seqScans();
  expect({ payments: after.payments! - before.payments!, transfers_out: after.transfers_out! - before.transfers_out! }).toEqual({ payments: 0, transfers_out: 0 });
});

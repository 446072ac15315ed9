import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createX402SettlementWaits } from "../../../api/services/x402SettlementWaits.ts";
import { createLogger } from "../../../config/logger.ts";
import { createDb, type DbHandle } from "../../../db/client.ts";
import { createMerchant } from "../../../db/merchants.ts";
import { announcedOutcome, insertX402Settlement, updateX402Settlement, X402_SETTLEMENTS_CHANNEL } from "../../../db/x402Settlements.ts";
import { anvilNetwork } from "../../../harness/fixtures.ts";
import { insertPaymentRows, paymentRowFactory } from "../../../harness/paymentRows.ts";
import { buildConfig } from "../../../plugins/config.ts";
import { createTestDatabase, type TestDatabase } from "../../../harness/database.ts";

let database: TestDatabase;
let handle: DbHandle;
const logger = createLogger({ level: "silent" });

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
});
afterAll(async () => {
  await handle.close();
  await database.drop();
});

const outcome = (id: string) => ({ id, status: "settled" as const, txHash: "0xabc", errorReason: null });
const announce = (payload: string) => handle.db.execute(sql`select pg_notify(${X402_SETTLEMENTS_CHANNEL}, ${payload})`);

describe("x402 settle waits", () => {
  test("a wait ends when its settlement is announced, and only its own", async () => {
    const waits = createX402SettlementWaits({ databaseUrl: database.url, logger });
    try {
      // The first wait opens the listener: give it time to listen before announcing.
      await waits.next("warm-up", 300).woken;
      const started = performance.now();
      const mine = waits.next("settlement-a", 10_000);
      const other = waits.next("settlement-b", 10_000);
      let otherWoken = false;
      void other.woken.then(() => (otherWoken = true));
      // What is not an outcome wakes nobody.
      await announce("settlement-a");
      await announce(JSON.stringify({ id: "settlement-a", status: "requested" }));
      await announce(JSON.stringify(outcome("settlement-a")));
      expect(await mine.woken).toEqual(outcome("settlement-a"));
      expect(performance.now() - started).toBeLessThan(2_000);
      await Bun.sleep(50);
      expect(otherWoken).toBe(false);
      other.cancel();
      expect(await other.woken).toBeNull();
    } finally {
      await waits.stop();
    }
  });

  test("unannounced, a wait ends after its time; with no database to listen to, too", async () => {
    for (const databaseUrl of [database.url, undefined]) {
      const waits = createX402SettlementWaits({ databaseUrl, logger });
      try {
        const started = performance.now();
        expect(await waits.next("never-announced", 120).woken).toBeNull();
        const waited = performance.now() - started;
        expect(waited).toBeGreaterThanOrEqual(100);
        expect(waited).toBeLessThan(3_000);
      } finally {
        await waits.stop();
      }
    }
  });

  test("the worker's writes announce the outcome (the trigger), and only the outcome", async () => {
    const config = buildConfig({}, { extraNetworks: [anvilNetwork("http://127.0.0.1:8545")] });
    const merchant = await createMerchant(handle.db, { name: "x402 waits" });
    const [payment] = await insertPaymentRows(handle.db, [paymentRowFactory(config)(merchant.id, { kind: "x402" })]);
    const nonce = `0x${"cd".repeat(32)}`;
    const settlement = (await insertX402Settlement(handle.db, {
      paymentId: payment!.id!,
      merchantId: merchant.id,
      mode: "test",
      network: "eip155:31337",
      chainId: "31337",
      asset: payment!.tokenAddress!,
      payer: "0x70997970C51812dc3A010C7d01b50e20d17dc79C",
      payTo: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
      amount: 10_000n,
      nonce,
      paymentIdentifier: null,
      x402Version: 2,
      payload: {},
      requirements: {},
    }))!;
    const waits = createX402SettlementWaits({ databaseUrl: database.url, logger });
    try {
      await waits.next("warm-up", 300).woken;
      const submitted = waits.next(settlement.id, 400);
      await updateX402Settlement(handle.db, settlement.id, { status: "submitted", txHash: "0xfeed" });
      expect(await submitted.woken).toBeNull();
      const settled = waits.next(settlement.id, 10_000);
      await updateX402Settlement(handle.db, settlement.id, { status: "settled", txHash: "0xfeed" });
      expect(await settled.woken).toEqual({ id: settlement.id, status: "settled", txHash: "0xfeed", errorReason: null });
    } finally {
      await waits.stop();
    }
  });

  test("stopping ends every wait at once", async () => {
    const waits = createX402SettlementWaits({ databaseUrl: database.url, logger });
    const wait = waits.next("settlement-c", 60_000);
    await waits.stop();
    await wait.woken;
  });
});

describe("an announced outcome", () => {
  test("is read from its JSON; anything else is none", () => {
    expect(announcedOutcome(JSON.stringify({ id: "a", status: "failed", txHash: null, errorReason: "transaction_failed" }))).toEqual({ id: "a", status: "failed", txHash: null, errorReason: "transaction_failed" });
    expect(announcedOutcome(JSON.stringify({ id: "a", status: "settled", txHash: "0x1" }))).toEqual({ id: "a", status: "settled", txHash: "0x1", errorReason: null });
    for (const payload of ["", "a", "null", "[]", "{}", JSON.stringify({ id: 1, status: "settled" }), JSON.stringify({ id: "a", status: "submitted" })]) {
      expect(announcedOutcome(payload)).toBeNull();
    }
  });
});

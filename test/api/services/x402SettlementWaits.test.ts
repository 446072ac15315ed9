import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createX402SettlementWaits } from "../../../api/services/x402SettlementWaits.ts";
import { createLogger } from "../../../config/logger.ts";
import { createDb, type DbHandle } from "../../../db/client.ts";
import { X402_SETTLEMENTS_CHANNEL } from "../../../db/x402Settlements.ts";
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

const announce = (id: string) => handle.db.execute(sql`select pg_notify(${X402_SETTLEMENTS_CHANNEL}, ${id})`);

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
      await announce("settlement-a");
      await mine.woken;
      expect(performance.now() - started).toBeLessThan(2_000);
      await Bun.sleep(50);
      expect(otherWoken).toBe(false);
      other.cancel();
      await other.woken;
    } finally {
      await waits.stop();
    }
  });

  test("unannounced, a wait ends after its time; with no database to listen to, too", async () => {
    for (const databaseUrl of [database.url, undefined]) {
      const waits = createX402SettlementWaits({ databaseUrl, logger });
      try {
        const started = performance.now();
        await waits.next("never-announced", 120).woken;
        const waited = performance.now() - started;
        expect(waited).toBeGreaterThanOrEqual(100);
        expect(waited).toBeLessThan(3_000);
      } finally {
        await waits.stop();
      }
    }
  });

  test("stopping ends every wait at once", async () => {
    const waits = createX402SettlementWaits({ databaseUrl: database.url, logger });
    const wait = waits.next("settlement-c", 60_000);
    await waits.stop();
    await wait.woken;
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createDb, queryRows, type DbHandle } from "../../db/client.ts";
import { createTestDatabase, type TestDatabase } from "../../harness/database.ts";
import { withChainLock } from "../../rails/chainLock.ts";

let database: TestDatabase;
let handle: DbHandle;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 2 });
});
afterAll(async () => {
  await handle.close();
  await database.drop();
});

/** The sessions holding the chain lock (class 726100) in this database now. */
const holders = () =>
  queryRows<{ pid: number }>(
    handle.db,
    sql`select pid from pg_locks where locktype = 'advisory' and granted and classid::bigint = 726100
        and database = (select oid from pg_database where datname = current_database())`,
  );

describe("the chain lock", () => {
  test("signers of one process take it one after another, through one session", async () => {
    let inside = 0;
    let most = 0;
    const sessions = new Set<number>();
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        withChainLock(database.url, "31337", async () => {
          inside++;
          most = Math.max(most, inside);
          for (const { pid } of await holders()) sessions.add(pid);
          await Bun.sleep(i % 2 ? 5 : 1);
          inside--;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(sessions.size).toBe(1);
    // Released between signers, not held while idle.
    expect(await holders()).toEqual([]);
  });

  test("a failing signer releases it; another chain's lock is its own", async () => {
    await expect(withChainLock(database.url, "31337", async () => Promise.reject(new Error("send failed")))).rejects.toThrow("send failed");
    expect(await holders()).toEqual([]);
    let a = false;
    let b = false;
    const first = withChainLock(database.url, "1", async () => {
      a = true;
      while (!b) await Bun.sleep(2);
    });
    const second = withChainLock(database.url, "8453", async () => {
      b = true;
      while (!a) await Bun.sleep(2);
    });
    await Promise.all([first, second]);
  });

  test("a session the database ends is replaced by the next signer", async () => {
    let pid = 0;
    await withChainLock(database.url, "10", async () => {
      pid = (await holders())[0]!.pid;
    });
    await queryRows(handle.db, sql`select pg_terminate_backend(${pid})`);
    await Bun.sleep(100);
    let again = 0;
    await withChainLock(database.url, "10", async () => {
      again = (await holders())[0]!.pid;
    });
    expect(again).toBeGreaterThan(0);
    expect(again).not.toBe(pid);
  });
});

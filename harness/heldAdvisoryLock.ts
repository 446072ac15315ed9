import { sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";

/**
 * Another session holding a transaction-level advisory lock (`pg_advisory_xact_lock(key)`)
 * until `release()`: a stuck or busy holder, as the code under test meets it. Resolves once
 * the lock is taken; `done` settles when the holder's transaction has ended.
 */
export async function holdAdvisoryLock(db: Db, key: number): Promise<{ release: () => void; done: Promise<void> }> {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const taken = new Promise<void>((resolve) => (locked = resolve));
  const done = db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${key})`);
    locked();
    await held;
  });
  await Promise.race([taken, done]);
  return { release, done };
}

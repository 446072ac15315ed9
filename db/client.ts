import { SQL } from "bun";
import { sql, type SQLWrapper } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { createProbedPool, type PoolProbe } from "./probedPool.ts";
import * as schema from "./schema/index.ts";

export type DbOptions = {
  max?: number;
  /** The roles' pools: replaced when the database goes silent (`createProbedPool`); `onReplace` hears of it. */
  probe?: PoolProbe & { onReplace: (waitedMs: number) => void };
};

/**
 * Drizzle over Bun's built-in SQL client: on these machines it serves ~2x the
 * requests of `pg` (DESIGN.md, "Measured"). Use `.prepare()` on hot paths.
 */
export function createDb(url: string, options: DbOptions = {}) {
  const { probe } = options;
  // A connection that cannot be made within the probe's wait fails like a refused one.
  const open = (max = options.max ?? 10) => new SQL({ url, max, idleTimeout: 30, ...(probe ? { connectionTimeout: Math.max(1, Math.ceil(probe.timeoutMs / 1000)) } : {}) });
  const pool = probe ? createProbedPool(open, probe, probe.onReplace) : null;
  const client = pool ? pool.client : open();
  const db = drizzle({ client, schema });
  return { db, client, close: () => (pool ? pool.close() : client.close()) };
}

export type Db = ReturnType<typeof createDb>["db"];
export type DbHandle = ReturnType<typeof createDb>;
export { schema };

/**
 * A drizzle prepared query, built once per handle: its SQL text is built once instead of
 * on every call (on hot paths the building costs more than the query). Each handle gets
 * its own, so a transaction's runs in that transaction; it pays off on the pool's.
 */
export function preparedPer<Q>(build: (db: Db) => Q): (db: Db) => Q {
  const built = new WeakMap<Db, Q>();
  return (db) => {
    let query = built.get(db);
    if (!query) built.set(db, (query = build(db)));
    return query;
  };
}

/** Raw SQL returning typed rows (drizzle's bun-sql `execute` is untyped). */
export async function queryRows<T>(db: Db, query: SQLWrapper): Promise<T[]> {
  return (await db.execute(query)) as unknown as T[];
}

/** A round trip to the database (health checks). */
export async function pingDatabase(db: Db): Promise<void> {
  await db.execute(sql`select 1`);
}

import { sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";
import { idempotencyKeys } from "./schema/index.ts";

/** Keys deleted a statement at a time: a day of keys at thousands of creations a second is millions of rows. */
const BATCH = 10_000;

/**
 * Forgets idempotency keys older than the retention window (Stripe keeps 24 h). A
 * retry after that creates a new payment, as merchants expect. Returns rows removed.
 * Batches found by the `created_at` index, counted in Postgres: neither a scan of the
 * table nor every deleted key carried back to the worker, nor one long transaction.
 */
export async function deleteExpiredIdempotencyKeys(db: Db, olderThanHours: number): Promise<number> {
  let total = 0;
  for (;;) {
    const [row] = await queryRows<{ n: number }>(db, sql`
      with gone as (
        delete from ${idempotencyKeys} where ctid = any(array(
          select ctid from ${idempotencyKeys} where ${idempotencyKeys.createdAt} < now() - make_interval(hours => ${olderThanHours}) limit ${BATCH}))
        returning 1)
      select count(*)::int as n from gone`);
    total += row!.n;
    if (row!.n < BATCH) return total;
  }
}

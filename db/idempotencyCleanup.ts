import { sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { idempotencyKeys } from "./schema/index.ts";

/**
 * Forgets idempotency keys older than the retention window (Stripe keeps 24 h). A
 * retry after that creates a new payment, as merchants expect. Returns rows removed.
 */
export async function deleteExpiredIdempotencyKeys(db: Db, olderThanHours: number): Promise<number> {
  const rows = await db
    .delete(idempotencyKeys)
    .where(sql`${idempotencyKeys.createdAt} < now() - make_interval(hours => ${olderThanHours})`)
    .returning({ key: idempotencyKeys.key });
  return rows.length;
}

import { sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";
import { paymentSubmissions } from "./schema/index.ts";

export type NewSubmission = typeof paymentSubmissions.$inferInsert;

/** Records what a submitted transaction pays (once per log: a resubmission changes nothing). */
export async function insertSubmissions(db: Db, rows: NewSubmission[]): Promise<void> {
  if (rows.length > 0) await db.insert(paymentSubmissions).values(rows).onConflictDoNothing();
}

/** Submitted credits of these payments. */
export function submissionsOf(db: Db, paymentIds: readonly string[]) {
  return queryRows<{ payment_id: string; chain_id: string; amount: string; block_number: string; log_index: number; ts: string; tx_hash: string }>(db, sql`
    select payment_id, chain_id, amount::text, block_number::text, log_index, extract(epoch from block_timestamp)::bigint::text as ts, tx_hash
    from payment_submissions where payment_id = any(${sql.param([...paymentIds])}::uuid[])`);
}

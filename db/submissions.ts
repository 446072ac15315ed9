import { sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";
import { paymentSubmissions } from "./schema/index.ts";

export type NewSubmission = typeof paymentSubmissions.$inferInsert;

/** Records what a submitted transaction pays (once per log: a resubmission changes nothing). */
export async function insertSubmissions(db: Db, rows: NewSubmission[]): Promise<void> {
  if (rows.length > 0) await db.insert(paymentSubmissions).values(rows).onConflictDoNothing();
}

/**
 * Submitted credits of these payments: of a transaction submitted more than once, the logs
 * of its newest verification only (one verification writes all of its logs at once). A
 * reorg that re-mined it under other log indexes leaves the older rows behind: counted too,
 * one transfer would count twice.
 */
export function submissionsOf(db: Db, paymentIds: readonly string[]) {
  return queryRows<{ payment_id: string; chain_id: string; amount: string; block_number: string; log_index: number; ts: string; tx_hash: string }>(db, sql`
    select payment_id, chain_id, amount::text, block_number::text, log_index, extract(epoch from block_timestamp)::bigint::text as ts, tx_hash
    from (select *, max(created_at) over (partition by payment_id, lower(tx_hash)) as newest
          from payment_submissions where payment_id = any(${sql.param([...paymentIds])}::uuid[])) s
    where created_at = newest`);
}

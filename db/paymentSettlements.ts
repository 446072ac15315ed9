import { sql } from "drizzle-orm";
import type { Settlement } from "../domain/settle.ts";
import type { Db } from "./client.ts";

const ts = (d: Date | null) => (d ? d.toISOString() : null);

/** A payment's new computed state, with the transaction and source of the credit that completed it. */
/** `evidenceBlock`: the newest block holding one of the payment's credits (final ones, the sandbox's, left out). */
export type SettlementUpdate = { id: string; after: Settlement; completingTx: string | null; completedVia: string | null; evidenceBlock: bigint | null };

/**
 * Persists reconciled payments in one UPDATE for the whole batch (a row-by-row loop caps
 * throughput at the round trips), its values as one array per column: a dozen
 * parameters whatever the batch size, so it is parsed and planned like any small one.
 */
export async function writeSettlements(db: Db, updates: SettlementUpdate[], now: Date) {
  if (updates.length === 0) return;
  const column = <T>(f: (u: SettlementUpdate) => T) => sql.param(updates.map(f));
  await db.execute(sql`
    update payments p set
      status = v.status, completed_via = v.completed_via, amount_received = v.amount_received, amount_remaining = v.amount_remaining, excess_owed = v.excess_owed,
      late_amount = v.late_amount, confirmations = v.confirmations, completing_tx_hash = v.completing_tx_hash,
      completing_block = v.completing_block, evidence_block = v.evidence_block, detected_at = v.detected_at, confirmed_at = v.confirmed_at,
      reconciled_at = ${now.toISOString()}::timestamptz, updated_at = now()
    from unnest(
      ${column((u) => u.id)}::uuid[], ${column((u) => u.after.status)}::text[], ${column((u) => u.completedVia)}::text[],
      ${column((u) => u.after.amountReceived.toString())}::numeric[], ${column((u) => u.after.amountRemaining.toString())}::numeric[],
      ${column((u) => u.after.excessOwed.toString())}::numeric[], ${column((u) => u.after.lateAmount.toString())}::numeric[],
      ${column((u) => u.after.confirmations)}::int[], ${column((u) => u.completingTx)}::text[],
      ${column((u) => u.after.completingCredit?.blockNumber.toString() ?? null)}::numeric[], ${column((u) => u.evidenceBlock?.toString() ?? null)}::numeric[],
      ${column((u) => ts(u.after.detectedAt))}::timestamptz[], ${column((u) => ts(u.after.confirmedAt))}::timestamptz[]
    ) as v(id, status, completed_via, amount_received, amount_remaining, excess_owed, late_amount, confirmations,
      completing_tx_hash, completing_block, evidence_block, detected_at, confirmed_at)
    where p.id = v.id`);
}

/** A payment `settle` ended by evidence (its carrier gave the money back or lost it), closed for good with why. */
export type ClosedPayment = { id: string; status: "failed"; reason: string; at: Date };

/** Records why and when payments ended (beside `writeSettlements`, which writes their new state). */
export async function writeClosings(db: Db, closings: ClosedPayment[]) {
  if (closings.length === 0) return;
  const column = <T>(f: (c: ClosedPayment) => T) => sql.param(closings.map(f));
  await db.execute(sql`
    update payments p set closed_status = v.status, closed_reason = v.reason, closed_at = v.at
    from unnest(${column((c) => c.id)}::uuid[], ${column((c) => c.status)}::text[], ${column((c) => c.reason)}::text[], ${column((c) => c.at.toISOString())}::timestamptz[])
      as v(id, status, reason, at)
    where p.id = v.id`);
}

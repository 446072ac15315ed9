import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { eventsForTransition } from "../domain/paymentEvents.ts";
import { closedAmounts } from "../domain/settle.ts";
import { preparedPer, queryRows, type Db } from "./client.ts";
import { allColumns, insertRecords, rowFromDriver } from "./jsonRecords.ts";
import { announcePaymentChanges } from "./paymentChanges.ts";
import { recordPaymentEvents } from "./paymentEvents.ts";
import { payments, type NewPayment, type PaymentRow } from "./schema/index.ts";
import type { Mode } from "../domain/mode.ts";

export type { NewPayment, PaymentRow };

const byId = preparedPer((db) => db.select().from(payments).where(eq(payments.id, sql.placeholder("id"))).limit(1).prepare("payment_by_id"));

/** A payment by id on a prepared query (the status endpoints' hot path). */
export async function findPayment(db: Db, id: string): Promise<PaymentRow | undefined> {
  const [row] = await byId(db).execute({ id });
  return row;
}

/** A payment only if it belongs to this merchant and mode: a key never sees another account's data. */
export async function findMerchantPayment(db: Db, merchantId: string, mode: Mode, id: string): Promise<PaymentRow | undefined> {
  const row = await findPayment(db, id);
  return row && row.merchantId === merchantId && row.mode === mode ? row : undefined;
}

/**
 * The payments with these ids, locked (`for update`) in id order, so that concurrent
 * lockers queue instead of deadlocking.
 */
export async function lockPayments(db: Db, ids: readonly string[]): Promise<PaymentRow[]> {
  const rows = await queryRows<Record<string, unknown>>(db, sql`
    select ${allColumns(payments)} from payments
    where id = any(${sql.param([...new Set(ids)])}::uuid[]) order by id for update`);
  return rows.map((r) => rowFromDriver(payments, r));
}

/** One payment, locked (`for update`) until the caller's transaction ends. */
export async function lockPayment(db: Db, id: string): Promise<PaymentRow | undefined> {
  const [row] = await db.select().from(payments).where(eq(payments.id, id)).for("update");
  return row;
}

/** Inserts payments, in one statement per set of columns given; the rows come back in the order of `values`. */
export async function insertPayments(db: Db, given: readonly NewPayment[]): Promise<PaymentRow[]> {
  // Ids are made here when not given, as the column's default would, so rows can be matched to `given`.
  const values = given.map((v) => (v.id ? v : { ...v, id: randomUUID() }));
  const inserted = new Map((await insertRecords(db, payments, values)).map((row) => [row.id, row]));
  return values.map((v) => inserted.get(v.id!)!);
}

export async function insertPayment(db: Db, values: NewPayment): Promise<PaymentRow> {
  const [row] = await insertPayments(db, [values]);
  return row!;
}

/**
 * Closes a payment the merchant gave up on, only while nothing has completed it: the
 * row is locked, checked still pending and written in one transaction. Its event
 * (`payment.failed`/`cancelled`/`expired`, and `underpaid` if funds had arrived) is
 * written in the same transaction. `onlyIfNothingReceived`: and only while nothing has arrived.
 */
export async function closePayment(
  db: Db,
  id: string,
  merchantId: string,
  closed: { status: "failed" | "cancelled" | "expired"; reason: string | null },
  options: { onlyIfNothingReceived?: boolean } = {},
): Promise<PaymentRow | undefined> {
  return db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    const open = await lockPayment(tx, id);
    if (!open || open.merchantId !== merchantId || open.status !== "pending") return undefined;
    if (options.onlyIfNothingReceived && open.amountReceived > 0n) return undefined;
    // The amounts are the closed payment's from the start (as `settle` gives them), so its
    // event tells the merchant what is owed back even if the reconcile after it fails.
    const [row] = await tx
      .update(payments)
      .set({ closedStatus: closed.status, closedReason: closed.reason, closedAt: sql`now()`, status: closed.status, ...closedAmounts(open.amountReceived), updatedAt: sql`now()` })
      .where(eq(payments.id, id))
      .returning();
    const types = eventsForTransition(open, row!);
    await Promise.all([recordPaymentEvents(tx, types.map((type) => ({ payment: row!, type }))), announcePaymentChanges(tx, [id])]);
    return row;
  });
}

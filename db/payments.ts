import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { preparedPer, queryRows, type Db } from "./client.ts";
import { allColumns, insertRecords, rowFromDriver } from "./jsonRecords.ts";
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

/** Records a cross-chain payment's public `bridgeStatus` (`updatedAt`: when it changed; null: it did not); the row as it now is. */
export async function setBridgeStatus(db: Db, id: string, bridgeStatus: PaymentRow["bridgeStatus"], updatedAt: Date | null): Promise<PaymentRow> {
  const [row] = await db
    .update(payments)
    .set({ bridgeStatus, ...(updatedAt ? { updatedAt } : {}) })
    .where(eq(payments.id, id))
    .returning();
  return row!;
}

/** Writes a payment closed (by its merchant) with these amounts (`settle`'s for a closed one); the row as it now is. */
export async function writeClosedPayment(
  db: Db,
  id: string,
  closed: { status: "failed" | "cancelled" | "expired"; reason: string | null; amounts: { amountRemaining: bigint; excessOwed: bigint } },
): Promise<PaymentRow> {
  const [row] = await db
    .update(payments)
    .set({ closedStatus: closed.status, closedReason: closed.reason, closedAt: sql`now()`, status: closed.status, ...closed.amounts, updatedAt: sql`now()` })
    .where(eq(payments.id, id))
    .returning();
  return row!;
}

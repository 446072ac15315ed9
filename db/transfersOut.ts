import { and, eq, inArray, sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";
import { payments, transfersOut } from "./schema.ts";
import type { PaymentRow } from "./payments.ts";
import { recordPaymentEvent } from "./paymentEvents.ts";

export type TransferOutRow = typeof transfersOut.$inferSelect;
export type TransferOutKind = TransferOutRow["kind"];

export async function findTransferOut(db: Db, id: string): Promise<TransferOutRow | undefined> {
  const [row] = await db.select().from(transfersOut).where(eq(transfersOut.id, id));
  return row;
}

export const transfersOutOf = (db: Db, paymentId: string) =>
  db.select().from(transfersOut).where(eq(transfersOut.paymentId, paymentId)).orderBy(transfersOut.createdAt);

/** The sweep or refund in flight for a payment (at most one, by a unique index). */
export async function openTransferOut(db: Db, paymentId: string): Promise<TransferOutRow | undefined> {
  const [row] = await db
    .select()
    .from(transfersOut)
    .where(and(eq(transfersOut.paymentId, paymentId), inArray(transfersOut.status, ["requested", "broadcast"])));
  return row;
}

/** Smallest units moved out of a payment's deposit address, or on their way, per kind. */
export async function movedOut(db: Db, paymentId: string): Promise<{ sweep: bigint; refund: bigint }> {
  const rows = await queryRows<{ kind: "sweep" | "refund"; total: string }>(
    db,
    sql`select kind, sum(amount)::text as total from transfers_out
        where payment_id = ${paymentId} and status in ('requested', 'broadcast', 'confirmed') group by kind`,
  );
  const total = (kind: string) => BigInt(rows.find((r) => r.kind === kind)?.total ?? "0");
  return { sweep: total("sweep"), refund: total("refund") };
}

/**
 * Records a sweep or refund before anything is sent. Returns undefined when another
 * one is already in flight for the payment (the unique index decides, not a race).
 */
export async function insertTransferOut(db: Db, values: typeof transfersOut.$inferInsert): Promise<TransferOutRow | undefined> {
  const [row] = await db.insert(transfersOut).values(values).onConflictDoNothing().returning();
  return row;
}

export async function updateTransferOut(db: Db, id: string, values: Partial<typeof transfersOut.$inferInsert>): Promise<void> {
  await db.update(transfersOut).set({ ...values, updatedAt: sql`now()` }).where(eq(transfersOut.id, id));
}

/** Rows a crash may have left half done, for the periodic re-drive. */
export async function unfinishedTransfersOut(db: Db): Promise<TransferOutRow[]> {
  return db.select().from(transfersOut).where(inArray(transfersOut.status, ["requested", "broadcast"]));
}

/**
 * Decides and records a sweep or refund under the payment's row lock: concurrent
 * callers queue on the lock and each sees what the previous one reserved, so the
 * amounts moved out can never exceed what is owed. `decide` returns the row to insert
 * (or null for nothing to do); undefined comes back when nothing was reserved.
 */
export async function reserveTransferOut(
  db: Db,
  paymentId: string,
  decide: (payment: PaymentRow, moved: { sweep: bigint; refund: bigint }) => Omit<typeof transfersOut.$inferInsert, "paymentId"> | null,
): Promise<TransferOutRow | undefined> {
  return db.transaction(async (txRaw) => {
    const tx = txRaw as unknown as Db;
    const [payment] = await tx.select().from(payments).where(eq(payments.id, paymentId)).for("update");
    if (!payment) return undefined;
    const values = decide(payment, await movedOut(tx, paymentId));
    if (!values) return undefined;
    return insertTransferOut(tx, { ...values, paymentId });
  });
}

/**
 * Closes a sweep or refund as confirmed and, in the same transaction and only on that
 * transition, records the payment's `forwarded` or `refunded` event (the outbox then
 * delivers it). Running it twice records one event.
 */
export async function confirmTransferOut(db: Db, id: string, blockNumber: bigint): Promise<void> {
  await db.transaction(async (txRaw) => {
    const tx = txRaw as unknown as Db;
    const [row] = await tx
      .update(transfersOut)
      .set({ status: "confirmed", blockNumber, error: null, updatedAt: sql`now()` })
      .where(and(eq(transfersOut.id, id), inArray(transfersOut.status, ["requested", "broadcast"])))
      .returning();
    if (!row) return;
    const [payment] = await tx.select().from(payments).where(eq(payments.id, row.paymentId)).for("update");
    await recordPaymentEvent(tx, payment!, row.kind === "sweep" ? "payment.forwarded" : "payment.refunded", {
      transfer: { id: row.id, amount: row.amount, to: row.toAddress, transactionHash: row.txHash, blockNumber: row.blockNumber },
    });
  });
}

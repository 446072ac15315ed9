import type { Db } from "../db/client.ts";
import { announcePaymentChanges } from "../db/paymentChanges.ts";
import { lockPayment, type PaymentRow } from "../db/payments.ts";
import type { transfersOut } from "../db/schema/index.ts";
import { insertTransferOut, movedOut, type TransferOutRow } from "../db/transfersOut.ts";

/** A row to reserve: what `reserveTransferOut`'s decision returns (the payment is filled in). */
export type TransferToReserve = Omit<typeof transfersOut.$inferInsert, "paymentId">;

/**
 * Decides and records a sweep or refund under the payment's row lock: concurrent
 * callers queue on the lock and each sees what the previous one reserved, so the
 * amounts moved out can never exceed what is owed. `decide` returns the row to insert
 * (or null for nothing to do); undefined comes back when nothing was reserved (also when
 * another transfer of the payment is in flight: one at a time, by a unique index). The row
 * is recorded before anything is signed or sent.
 */
export async function reserveTransferOut(
  db: Db,
  paymentId: string,
  decide: (payment: PaymentRow, moved: { sweep: bigint; refund: bigint }) => TransferToReserve | null,
  /** Runs in the same transaction, under the same lock, once a row is reserved (what records the refund's request); throwing undoes the reservation. */
  reserved?: (tx: Db, payment: PaymentRow, row: TransferOutRow) => Promise<void>,
): Promise<TransferOutRow | undefined> {
  return db.transaction(async (txRaw) => {
    const tx = txRaw as unknown as Db;
    const payment = await lockPayment(tx, paymentId);
    if (!payment) return undefined;
    const values = decide(payment, await movedOut(tx, paymentId));
    if (!values) return undefined;
    const row = await insertTransferOut(tx, { ...values, paymentId });
    // A refund reserved changes what the checkout page says is owed back.
    if (row?.kind === "refund") await announcePaymentChanges(tx, [paymentId]);
    if (row && reserved) await reserved(tx, payment, row);
    return row;
  });
}

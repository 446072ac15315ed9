import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "./client.ts";
import { bridgeRequests, merchants, payments, transfersOut, type BridgeRequestRow, type PaymentRow, type TransferOutRow } from "./schema/index.ts";

/**
 * A payment as its checkout page shows it: the row, the merchant's name, the refunds sent
 * or under way, and a cross-chain payment's bridge request (where the customer pays).
 */
export type PublicPaymentRecord = { payment: PaymentRow; merchantName: string; refunds: TransferOutRow[]; bridge: BridgeRequestRow | null };

/**
 * The payments with these ids, each with what its checkout page needs beside the row.
 * Three queries for any number of ids (the checkout streams re-read many payments at once).
 */
export async function findPublicPayments(db: Db, ids: readonly string[]): Promise<Map<string, PublicPaymentRecord>> {
  const unique = [...new Set(ids)];
  const records = new Map<string, PublicPaymentRecord>();
  if (unique.length === 0) return records;
  const [rows, refunds, bridges] = await Promise.all([
    db
      .select({ payment: payments, merchantName: merchants.name })
      .from(payments)
      .innerJoin(merchants, eq(merchants.id, payments.merchantId))
      .where(inArray(payments.id, unique)),
    db
      .select()
      .from(transfersOut)
      .where(and(inArray(transfersOut.paymentId, unique), eq(transfersOut.kind, "refund")))
      .orderBy(transfersOut.createdAt),
    db.select().from(bridgeRequests).where(inArray(bridgeRequests.paymentId, unique)),
  ]);
  for (const row of rows) records.set(row.payment.id, { ...row, refunds: [], bridge: null });
  for (const bridge of bridges) {
    const record = records.get(bridge.paymentId);
    if (record) record.bridge = bridge;
  }
  for (const refund of refunds) records.get(refund.paymentId)?.refunds.push(refund);
  return records;
}

/** One payment's checkout record, or undefined. */
export async function findPublicPayment(db: Db, id: string): Promise<PublicPaymentRecord | undefined> {
  return (await findPublicPayments(db, [id])).get(id);
}

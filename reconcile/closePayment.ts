import type { Db } from "../db/client.ts";
import { announcePaymentChanges } from "../db/paymentChanges.ts";
import { recordPaymentEvents } from "../db/paymentEvents.ts";
import { lockPayment, writeClosedPayment, type PaymentRow } from "../db/payments.ts";
import { eventsForTransition } from "../domain/paymentEvents.ts";
import { closedAmounts } from "../domain/settle.ts";

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
    const row = await writeClosedPayment(tx, id, { ...closed, amounts: closedAmounts(open.amountReceived) });
    const types = eventsForTransition(open, row);
    await Promise.all([recordPaymentEvents(tx, types.map((type) => ({ payment: row, type }))), announcePaymentChanges(tx, [id])]);
    return row;
  });
}

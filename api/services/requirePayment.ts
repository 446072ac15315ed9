import type { Db } from "../../db/client.ts";
import { findMerchantPayment, type PaymentRow } from "../../db/payments.ts";
import type { Mode } from "../../domain/mode.ts";
import { NotFoundError } from "../../domain/errors.ts";

/** The caller's payment, or a 404: a key never sees another account's (or mode's) payments. */
export async function requirePayment(db: Db, auth: { merchantId: string; mode: Mode }, paymentId: string): Promise<PaymentRow> {
  const payment = await findMerchantPayment(db, auth.merchantId, auth.mode, paymentId);
  if (!payment) throw new NotFoundError(`No payment with id ${paymentId}.`);
  return payment;
}

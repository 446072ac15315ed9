import type { Config, Mode } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { closePayment, findMerchantPayment } from "../../db/payments.ts";
import { ConflictError } from "../../domain/errors.ts";
import { reconcilePayments } from "../../reconcile/index.ts";
import { requirePayment } from "./requirePayment.ts";

/**
 * Marks a payment failed, cancelled or expired, only while it is pending: first it is
 * brought up to date with the chain, so a payment whose money has arrived cannot be
 * closed over it. Money arriving later is recorded as owed back to the customer.
 */
export async function failPayment(
  deps: { config: Config; db: Db },
  auth: { merchantId: string; mode: Mode },
  body: { paymentId: string; status: "failed" | "cancelled" | "expired"; reason?: string },
) {
  const payment = await requirePayment(deps.db, auth, body.paymentId);
  await reconcilePayments(deps.db, deps.config, [payment.id]);
  const closed = await closePayment(deps.db, payment.id, auth.merchantId, { status: body.status, reason: body.reason?.trim() || null });
  if (!closed) {
    const current = await findMerchantPayment(deps.db, auth.merchantId, auth.mode, payment.id);
    throw new ConflictError(`Payment is ${current?.status ?? payment.status}; only a pending payment can be marked ${body.status}.`, "invalid_state");
  }
  await reconcilePayments(deps.db, deps.config, [payment.id]);
  return (await findMerchantPayment(deps.db, auth.merchantId, auth.mode, payment.id))!;
}

import type { Config, Mode } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";
import { closePayment, findMerchantPayment } from "../../db/payments.ts";
import { ConflictError } from "../../domain/errors.ts";
import type { Prompts } from "../../domain/prompts.ts";
import { reconcilePayments } from "../../reconcile/index.ts";
import { requirePayment } from "./requirePayment.ts";

/**
 * Marks a payment failed, cancelled or expired, only while it is pending: first it is
 * brought up to date with the chain, so a payment whose money has arrived cannot be
 * closed over it. Money arriving later is recorded as owed back to the customer. A
 * cross-chain payment's bridge is read at once: a bridge that refunds on request is told
 * before a deposit waiting for it is filled (`observeBridge`).
 */
export async function failPayment(
  deps: { config: Config; db: Db; logger: Logger; prompts: Prompts },
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
  // The close has committed with its amounts and events; money that arrived in between is
  // read here or, if this fails, by the prompted reconcile job: the merchant is told it is closed.
  await reconcilePayments(deps.db, deps.config, [payment.id]).catch(async (error: unknown) => {
    deps.logger.warn({ err: error, paymentId: payment.id }, "reconcile after closing failed; prompting it");
    await deps.prompts.reconcile([payment.id], `close:${payment.id}`).catch(() => undefined);
  });
  // Ended: native coin sent to its deposit address is forwarded to the merchant (the sweep job decides; nothing of the token is owed).
  await deps.prompts.sweep([payment.id]).catch((error: unknown) => deps.logger.warn({ err: error, paymentId: payment.id }, "could not prompt the sweep after closing"));
  if (payment.kind === "cross_chain") {
    // After commit; if Redis is down the bridge's next poll (or the periodic recheck) asks.
    await deps.prompts.bridge([payment.id]).catch((error: unknown) => deps.logger.warn({ err: error, paymentId: payment.id }, "could not prompt the bridge read after closing"));
  }
  return (await findMerchantPayment(deps.db, auth.merchantId, auth.mode, payment.id))!;
}

import type { Config, Mode } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";
import { findMerchantPayment, type PaymentRow } from "../../db/payments.ts";
import { formatAmount } from "../../domain/amounts.ts";
import { ConflictError, ForbiddenError, ServiceUnavailableError } from "../../domain/errors.ts";
import type { Prompts } from "../../domain/prompts.ts";
import { closePayment, reconcilePayments } from "../../reconcile/index.ts";
import { portsOf } from "../../rails/index.ts";
import type { AuthContext } from "../plugins/auth.ts";
import { requirePayment } from "./requirePayment.ts";

const keyAndSecret = "closing a payment that holds money takes the API key and secret (X-API-Key, X-API-Secret)";

/**
 * A public key may close only a payment that holds nothing: nothing credited, no bridge
 * deposit under way, and nothing at its own address on the chain (money not indexed yet).
 * Anyone holding the public key could otherwise close a paid-into payment and make what it
 * received refundable. A payment no longer pending is left for `closePayment` to refuse (409).
 */
async function assertHoldsNothing(deps: { config: Config; db: Db }, auth: { merchantId: string; mode: Mode }, paymentId: string) {
  const payment = await findMerchantPayment(deps.db, auth.merchantId, auth.mode, paymentId);
  if (!payment || payment.status !== "pending") return;
  const refuse = (what: string) => new ForbiddenError(`Payment ${payment.id} ${what}: ${keyAndSecret}.`);
  if (payment.amountReceived > 0n) throw refuse(`has received ${formatAmount(payment.amountReceived, payment.tokenDecimals)} ${payment.currency}`);
  if (payment.bridgeStatus !== null && payment.bridgeStatus !== "awaiting_deposit") throw refuse(`has a bridge deposit under way (${payment.bridgeStatus})`);
  const { network, chain, method } = portsOf(deps.config, payment);
  if (!payment.receiveAddress || !method.holdsFunds?.(payment)) return;
  const balance = await chain.balanceOf(network, payment, deps.config.rpcTimeoutMs * 2).catch((error: Error) => {
    throw new ServiceUnavailableError(`Could not read the payment's address on ${network.name} to check that it holds nothing: ${error.message.split("\n")[0]}`);
  });
  if (balance > 0n) throw refuse(`has ${formatAmount(balance, payment.tokenDecimals)} ${payment.tokenSymbol} at its address, not yet credited`);
}

const refusedClose = (payment: PaymentRow, status: string) =>
  payment.status === "pending"
    ? new ForbiddenError(`Payment ${payment.id} has received ${formatAmount(payment.amountReceived, payment.tokenDecimals)} ${payment.currency}: ${keyAndSecret}.`)
    : new ConflictError(`Payment is ${payment.status}; only a pending payment can be marked ${status}.`, "invalid_state");

/**
 * Marks a payment failed, cancelled or expired, only while it is pending: first it is
 * brought up to date with the chain, so a payment whose money has arrived cannot be
 * closed over it. Money arriving later is recorded as owed back to the customer. A
 * cross-chain payment's bridge is read at once: a bridge that refunds on request is told
 * before a deposit waiting for it is filled (`observeBridge`). With a public key, only a
 * payment that holds nothing (`assertHoldsNothing`); key + secret closes any pending one.
 */
export async function failPayment(
  deps: { config: Config; db: Db; logger: Logger; prompts: Prompts },
  auth: Pick<AuthContext, "merchantId" | "mode" | "scheme">,
  body: { paymentId: string; status: "failed" | "cancelled" | "expired"; reason?: string },
) {
  const payment = await requirePayment(deps.db, auth, body.paymentId);
  await reconcilePayments(deps.db, deps.config, [payment.id]);
  const publicKey = auth.scheme === "public_key";
  if (publicKey) await assertHoldsNothing(deps, auth, payment.id);
  const closed = await closePayment(deps.db, payment.id, auth.merchantId, { status: body.status, reason: body.reason?.trim() || null }, { onlyIfNothingReceived: publicKey });
  if (!closed) {
    const current = await findMerchantPayment(deps.db, auth.merchantId, auth.mode, payment.id);
    throw refusedClose(current ?? payment, body.status);
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

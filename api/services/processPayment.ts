import type { Config, Mode } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";
import { findMerchantPayment } from "../../db/payments.ts";
import { NotFoundError } from "../../domain/errors.ts";
import { verifySubmission } from "../../reconcile/index.ts";

/**
 * A transaction a client says pays a payment: verified on the payment's chain at once
 * (the indexer finds it anyway); a match is credited and the payment reconciled,
 * anything else is a 400 and never a credit.
 */
export async function processPayment(deps: { config: Config; db: Db; logger: Logger }, auth: { merchantId: string; mode: Mode }, body: { paymentId: string; txHash: string }) {
  const payment = await findMerchantPayment(deps.db, auth.merchantId, auth.mode, body.paymentId);
  if (!payment) throw new NotFoundError(`No payment with id ${body.paymentId}.`);
  return verifySubmission(deps, payment, body.txHash);
}

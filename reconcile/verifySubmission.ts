import type { PaymentRow } from "../db/schema/index.ts";
import { findPayment } from "../db/payments.ts";
import { insertSubmissions } from "../db/submissions.ts";
import { ValidationError } from "../domain/errors.ts";
import { portsOf, type RailContext } from "../rails/index.ts";
import { reconcilePayments } from "./reconcilePayments.ts";

/**
 * Verifies a transaction a client says pays `payment`, on the payment's chain through
 * its payment method. What it pays is recorded (it counts until ingest reaches its block) and the
 * payment reconciled at once; a transaction that pays nothing is a 400 and never a credit.
 * Returns the payment as it now stands.
 */
export async function verifySubmission(ctx: RailContext, payment: PaymentRow, transaction: string): Promise<PaymentRow> {
  const { network, method } = portsOf(ctx.config, payment);
  if (!method.verifySubmission) throw new ValidationError("txHash", `Invalid field 'txHash': ${method.verifiedInstead ?? "this kind of payment takes no submitted transaction"}`);
  const paid = await method.verifySubmission(ctx, payment, network, transaction);
  if (paid.length === 0) throw new ValidationError("txHash", `Invalid field 'txHash': transaction ${transaction} does not pay payment ${payment.id}`);
  await insertSubmissions(
    ctx.db,
    paid.map((c) => ({ paymentId: payment.id, chainId: payment.chainId, txHash: c.txHash, logIndex: c.logIndex, blockNumber: c.blockNumber, blockTimestamp: c.blockTimestamp, amount: c.amount })),
  );
  await reconcilePayments(ctx.db, ctx.config, [payment.id]);
  return (await findPayment(ctx.db, payment.id))!;
}

/**
 * Asks the payment's evidence source to look for its evidence on chain now (verify-qr), beyond
 * what ingest has reached. A chain that cannot be read is logged, not an error: the
 * answer then says what ingest has seen.
 */
export async function refreshEvidence(ctx: RailContext, payment: PaymentRow): Promise<void> {
  try {
    const { network, evidence } = portsOf(ctx.config, payment);
    await evidence.refreshEvidence?.(ctx, payment, network);
  } catch (error) {
    ctx.logger.warn({ err: error, payment: payment.id }, "could not look the payment up on chain; answering from ingested evidence");
  }
}

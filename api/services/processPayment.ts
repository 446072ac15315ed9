import type { Config, Mode } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";
import { ValidationError } from "../../domain/errors.ts";
import { verifySubmission } from "../../reconcile/index.ts";
import { requirePayment } from "./requirePayment.ts";

/** The spec's body, with the client SDK's names beside it (`transactionHash`, `network`, `senderAddress`). */
export type ProcessPaymentBody = { paymentId: string; txHash?: string; transactionHash?: string; network?: string; senderAddress?: string };

/**
 * A transaction a client says pays a payment: verified on the payment's chain at once
 * (the indexer finds it anyway); a match is credited and the payment reconciled,
 * anything else is a 400 and never a credit. `senderAddress` is not trusted: what the
 * transaction itself pays decides.
 */
export async function processPayment(deps: { config: Config; db: Db; logger: Logger }, auth: { merchantId: string; mode: Mode }, body: ProcessPaymentBody) {
  const transaction = body.txHash ?? body.transactionHash;
  if (transaction === undefined) throw new ValidationError("txHash", "Invalid field 'txHash': required (or transactionHash): the transaction that pays the payment");
  if (body.txHash !== undefined && body.transactionHash !== undefined && body.txHash !== body.transactionHash) {
    throw new ValidationError("transactionHash", "Invalid field 'transactionHash': differs from txHash; send one transaction");
  }
  const payment = await requirePayment(deps.db, auth, body.paymentId);
  if (body.network !== undefined) {
    const network = deps.config.networks.find((n) => n.chainId === payment.chainId);
    if (body.network !== network?.shortName) {
      throw new ValidationError("network", `Invalid field 'network': payment ${payment.id} is on ${network?.shortName ?? payment.chainId}, not ${body.network}`);
    }
  }
  return verifySubmission(deps, payment, transaction);
}

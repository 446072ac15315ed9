import type { Config, Mode } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";
import { verifySubmission } from "../../reconcile/index.ts";
import { requirePayment } from "./requirePayment.ts";

/**
 * A transaction a client says pays a payment: verified on the payment's chain at once
 * (the indexer finds it anyway); a match is credited and the payment reconciled,
 * anything else is a 400 and never a credit.
 */
export async function processPayment(deps: { config: Config; db: Db; logger: Logger }, auth: { merchantId: string; mode: Mode }, body: { paymentId: string; txHash: string }) {
  return verifySubmission(deps, await requirePayment(deps.db, auth, body.paymentId), body.txHash);
}

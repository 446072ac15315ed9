import type { Network } from "../config/index.ts";
import type { Db } from "../db/client.ts";
import { recordPaymentEvent } from "../db/paymentEvents.ts";
import { lockPayment } from "../db/payments.ts";
import { awaitingRefundRequests, insertRefundRequest, type RefundRequestRow } from "../db/refundRequests.ts";
import type { PaymentRow } from "../db/schema/index.ts";
import { movedOut } from "../db/transfersOut.ts";
import { NotFoundError, RefundRefusedError } from "../domain/errors.ts";
import type { PayoutDeps } from "./deps.ts";
import { refundDue } from "./refundDue.ts";
import { refundRequestView } from "./refundRequestView.ts";
import type { RefundRequester } from "./routeRefund.ts";

/**
 * How many requests of one payment may await approval at once: anyone holding the payment
 * id may ask, and each request is a webhook to the merchant. More are refused until the
 * merchant decides (or a refund goes out, which supersedes them all).
 */
export const MAX_AWAITING_REQUESTS = 10;

/**
 * Records a request for an address the service may not send to on the asker's word alone:
 * it sends nothing, and waits for the merchant's approval or a paying address's signature.
 * It asks for what is owed now (approval sends no more, nor more than is owed then). A request
 * for an address that already has one awaiting is that request (no second webhook). Writes
 * `refund.requested` with it, under the payment's lock.
 */
export async function awaitApproval(
  deps: PayoutDeps,
  payment: PaymentRow,
  network: Network,
  ask: { to: string; requestedBy: RefundRequester; reason: string | null },
): Promise<{ refundRequest: RefundRequestRow; created: boolean }> {
  return deps.db.transaction(async (txRaw) => {
    const tx = txRaw as unknown as Db;
    const current = await lockPayment(tx, payment.id);
    if (!current) throw new NotFoundError(`No payment with id ${payment.id}.`);
    const moved = await movedOut(tx, payment.id);
    const due = refundDue({ payment: current, refunded: moved.refund, swept: moved.sweep, stillHeld: null, cap: null, minimum: deps.config.refunds.minimum });
    if ("refused" in due) throw new RefundRefusedError(due.refused.message, due.refused.code);
    const awaiting = await awaitingRefundRequests(tx, payment.id);
    const same = awaiting.find((r) => r.toAddress === ask.to);
    if (same) return { refundRequest: same, created: false };
    if (awaiting.length >= MAX_AWAITING_REQUESTS) {
      throw new RefundRefusedError(
        `${awaiting.length} refund requests of this payment already await the merchant's approval; ask the merchant, or sign the request with the address that paid.`,
        "too_many_refund_requests",
      );
    }
    const request = await insertRefundRequest(tx, {
      paymentId: current.id,
      merchantId: current.merchantId,
      mode: current.mode,
      status: "awaiting_approval",
      toAddress: ask.to,
      amount: due.amount,
      reason: ask.reason,
      requestedBy: ask.requestedBy,
    });
    await recordPaymentEvent(tx, current, "refund.requested", { refundRequest: refundRequestView(request, current, network) });
    return { refundRequest: request, created: true };
  });
}

import { findPayment } from "../db/payments.ts";
import { decideRefundRequest, findRefundRequest, type RefundRequestRow } from "../db/refundRequests.ts";
import type { PaymentRow } from "../db/schema/index.ts";
import { NotFoundError } from "../domain/errors.ts";
import { reconcilePayments } from "../reconcile/index.ts";
import type { PayoutDeps } from "./deps.ts";
import { assertNotReverting, checkDestination, refundPorts } from "./refundChecks.ts";
import { closed, sendRefund, type SentRefund } from "./sendRefund.ts";

async function awaitingRequest(deps: PayoutDeps, payment: PaymentRow, requestId: string): Promise<RefundRequestRow> {
  const request = await findRefundRequest(deps.db, payment.id, requestId);
  if (!request) throw new NotFoundError(`Payment ${payment.id} has no refund request ${requestId}.`);
  if (request.status !== "awaiting_approval") throw closed(request.status);
  return request;
}

/**
 * The merchant's approval (key + secret) of a request awaiting it: its refund is reserved and
 * sent to the request's address, for no more than the request asked for nor than is owed
 * now. Two approvals at once send one refund; an approval racing a rejection or another
 * refund finds the request closed (409 `refund_request_closed`) and sends nothing.
 */
export async function approveRefundRequest(deps: PayoutDeps, payment: PaymentRow, requestId: string): Promise<SentRefund> {
  const request = await awaitingRequest(deps, payment, requestId);
  const ports = refundPorts(deps, payment);
  await checkDestination(deps, ports, payment, request.toAddress);
  await assertNotReverting(deps, payment);
  await reconcilePayments(deps.db, deps.config, [payment.id]);
  const current = await findPayment(deps.db, payment.id);
  if (!current) throw new NotFoundError(`No payment with id ${payment.id}.`);
  return sendRefund(deps, current, ports.network, ports.chain, {
    to: request.toAddress,
    authorizedBy: "merchant",
    cap: request.amount,
    requestedBy: request.requestedBy,
    reason: request.reason,
    requestId: request.id,
  });
}

/** The merchant's refusal (key + secret) of a request awaiting approval: it sends nothing, ever. */
export async function rejectRefundRequest(deps: PayoutDeps, payment: PaymentRow, requestId: string): Promise<RefundRequestRow> {
  const request = await awaitingRequest(deps, payment, requestId);
  const rejected = await decideRefundRequest(deps.db, request.id, { status: "rejected" });
  if (!rejected) throw closed((await findRefundRequest(deps.db, payment.id, requestId))?.status);
  return rejected;
}

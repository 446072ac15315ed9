/**
 * Money going out of the service, its one face: refunds and the requests for them — who may
 * send what where, the request's states, the merchant's approval, a payer's signature, and
 * never more than is owed; native coin left at deposit addresses. Routes stay thin and call these;
 * the refund job sends what they reserve.
 */
export { approveRefundRequest, rejectRefundRequest } from "./decideRefundRequest.ts";
export type { PayoutDeps } from "./deps.ts";
export { REFUND_MESSAGE_VERSION, refundMessage } from "./refundMessage.js";
export { refundRequestView, type RefundRequestView } from "./refundRequestView.ts";
export { requestRefund, type RefundRequestBody, type RefundRequestOutcome } from "./requestRefund.ts";
export { refundDue } from "./refundDue.ts";
export { routeRefund, solePayer, type RefundAsk, type RefundRequester, type RefundRoute } from "./routeRefund.ts";
export { MAX_AWAITING_REQUESTS } from "./awaitApproval.ts";
export { NATIVE_COIN, sweepNativeCoin, type NativeSweepOutcome } from "./nativeSweep.ts";

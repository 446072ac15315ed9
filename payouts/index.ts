/**
 * Money going out of the service, its one face: sweeps of what deposit addresses owe their
 * merchants (the token, then native coin), refunds and the requests for them — who may send
 * what where, the request's states, the merchant's approval, a payer's signature, and never
 * more than is owed — the revert limit, and the transfer-out state machine with the events it
 * writes (`payment.forwarded`, `payment.refunded`, their `*_reverted`, `refund.requested`).
 * Routes and jobs stay thin and call these; a chain's rail signs and sends what they reserve,
 * reporting to `transferLedger`.
 */
export { applyDueWalletChanges } from "./applyDueWalletChanges.ts";
export { approveRefundRequest, rejectRefundRequest } from "./decideRefundRequest.ts";
export type { PayoutDeps } from "./deps.ts";
export { cancelTransfer, executeTransfer, recheckTransfer } from "./driveTransfer.ts";
export { REFUND_MESSAGE_VERSION, refundMessage } from "./refundMessage.js";
export { refundRequestView, type RefundRequestView } from "./refundRequestView.ts";
export { requestRefund, type RefundRequestBody, type RefundRequestOutcome } from "./requestRefund.ts";
export { refundDue } from "./refundDue.ts";
export { signedRefundDue } from "./signedRefundDue.ts";
export { refundWaits } from "./refundWaits.ts";
export { reserveTransferOut, type TransferToReserve } from "./reserveTransfer.ts";
export { REVERT_LIMIT, revertLimitReached } from "./revertLimit.ts";
export { routeRefund, solePayer, type RefundAsk, type RefundRequester, type RefundRoute } from "./routeRefund.ts";
export { MAX_AWAITING_REQUESTS } from "./awaitApproval.ts";
export { prepareMerchantSignedRefund, sendMerchantSignedRefund, type SignedRefundAsk } from "./merchantSignedRefund.ts";
export { NATIVE_COIN, sweepNativeCoin, type NativeSweepOutcome } from "./nativeSweep.ts";
export { sendRequestedRefund, type RefundSent } from "./sendRequestedRefund.ts";
export { sweepPayment, type SweepOutcome } from "./sweep.ts";
export { confirmTransferOut, failTransferOut, reopenTransferOut, transferLedger } from "./transferLedger.ts";

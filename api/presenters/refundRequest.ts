import type { Network } from "../../config/types.ts";
import type { PaymentRow } from "../../db/payments.ts";
import { refundRequestView, type RefundRequestOutcome } from "../../payouts/index.ts";
import { presentTransfer } from "./deposit.ts";

/**
 * A refund request's answer (202 either way): sent — the refund is reserved and goes out
 * shortly (`refund`, as `/deposits/refund-request` has always answered) — or awaiting the
 * merchant's approval or a paying address's signature (`refundRequest.status`
 * `awaiting_approval`, with the `message` such a signature is over).
 */
export function presentRefundRequestOutcome(outcome: RefundRequestOutcome, payment: PaymentRow, network: Network) {
  const refundRequest = refundRequestView(outcome.refundRequest, payment, network);
  if (outcome.transfer) {
    return { success: true, message: "Refund requested; it is sent shortly.", refund: presentTransfer(outcome.transfer, payment.tokenDecimals), refundRequest };
  }
  return {
    success: true,
    message:
      "Refund request recorded; nothing is sent yet. It goes to this address once the merchant approves it, or at once when the address that paid signs it (POST again with `amount` and `signature` over `refundRequest.message`). A request without an address is sent back to the address that paid.",
    refundRequest,
  };
}

import type { Network } from "../config/index.ts";
import type { RefundRequestRow } from "../db/refundRequests.ts";
import type { PaymentRow } from "../db/schema/index.ts";
import { formatAmount } from "../domain/amounts.ts";
import { refundMessage } from "./refundMessage.js";

/** The message a paying address signs to let `request` out (the same text the checkout page has its wallet sign). */
export const messageOf = (request: Pick<RefundRequestRow, "paymentId" | "toAddress" | "amount">, payment: Pick<PaymentRow, "tokenDecimals" | "tokenSymbol" | "chainId">, network: Pick<Network, "name">) =>
  refundMessage({
    paymentId: request.paymentId,
    to: request.toAddress,
    amount: formatAmount(request.amount, payment.tokenDecimals),
    token: payment.tokenSymbol,
    network: network.name,
    chainId: payment.chainId,
  });

/**
 * A refund request as the merchant's API, the `refund.requested` webhook and the checkout
 * page see it. `message`, while it awaits approval: the text a paying address signs to let it
 * out at once (POSTed back with `address`, `amount` and `signature`).
 */
export function refundRequestView(r: RefundRequestRow, payment: Pick<PaymentRow, "tokenDecimals" | "tokenSymbol" | "chainId">, network: Pick<Network, "name" | "shortName">) {
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    id: r.id,
    paymentId: r.paymentId,
    status: r.status,
    to: r.toAddress,
    amount: formatAmount(r.amount, payment.tokenDecimals),
    token: payment.tokenSymbol,
    network: network.shortName,
    reason: r.reason,
    requestedBy: r.requestedBy,
    authorizedBy: r.authorizedBy,
    signer: r.signer,
    transferId: r.transferId,
    message: r.status === "awaiting_approval" ? messageOf(r, payment, network) : null,
    createdAt: r.createdAt.toISOString(),
    decidedAt: iso(r.decidedAt),
  };
}

export type RefundRequestView = ReturnType<typeof refundRequestView>;

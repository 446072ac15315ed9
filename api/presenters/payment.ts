import type { PaymentStatusRow } from "../../db/paymentStatuses.ts";
import type { Network } from "../../config/types.ts";
import type { PaymentRow } from "../../db/payments.ts";
import { formatAmount } from "../../domain/amounts.ts";
import { railForPayment } from "../../rails/index.ts";

/*
 * Addresses are shown as stored: the rail wrote them in their canonical form
 * (checksummed on EVM) when the payment was created.
 */
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** What was asked, what arrived and what is still missing, in whole tokens. */
export const amountsOf = (p: Pick<PaymentRow, "amount" | "amountReceived" | "amountRemaining" | "tokenDecimals">) => ({
  amount: formatAmount(p.amount, p.tokenDecimals),
  amountReceived: formatAmount(p.amountReceived, p.tokenDecimals),
  amountRemaining: formatAmount(p.amountRemaining, p.tokenDecimals),
});

/** Settlement progress (the spec's `paymentSplitterStatus`), plus how the split went. */
export function presentSettlement(p: PaymentRow, network: Network | undefined) {
  return {
    amount: formatAmount(p.amount, p.tokenDecimals),
    currency: p.currency,
    network: network?.shortName ?? p.chainId,
    contractAddress: p.contractAddress ?? "",
    merchantWallet: p.merchantWallet,
    createdAt: p.createdAt.toISOString(),
    status: p.status === "completed" ? "settled" : p.status === "confirming" ? "confirming" : p.status === "pending" ? "awaiting_payment" : "not_settled",
    merchantAmount: formatAmount(p.amount - p.feeAmount, p.tokenDecimals),
    feeAmount: formatAmount(p.feeAmount, p.tokenDecimals),
    feeRecipient: p.feeRecipient,
    transactionHash: p.completingTxHash,
  };
}

/** The spec's Payment status view. `confirmations` is what reconciliation last computed (`settle`). */
export function presentStatus(p: PaymentStatusRow) {
  return {
    id: p.id,
    status: p.status,
    ...amountsOf(p),
    currency: p.currency,
    confirmations: p.confirmations,
    detectedAt: iso(p.detectedAt),
    confirmedAt: iso(p.confirmedAt),
    expiresAt: iso(p.expiresAt),
    bridgeStatus: p.bridgeStatus,
    transactionHash: p.completingTxHash,
  };
}

/** The payment's QR/deep-link URI, from its rail (null when its network has none). */
const paymentUriOf = (p: PaymentRow, network: Network | undefined) => (network && railForPayment(network, p)?.paymentUri(p)) ?? null;

/** The hosted checkout page of a payment: where a merchant sends the customer. */
export const checkoutUrlOf = (publicBaseUrl: string, paymentId: string) => `${publicBaseUrl}/pay/${paymentId}`;

/** The full record for the merchant (creation response and `GET /payments/{id}`). */
export function presentPayment(p: PaymentRow, network: Network | undefined, publicBaseUrl: string) {
  return {
    ...presentStatus(p),
    excessOwed: formatAmount(p.excessOwed, p.tokenDecimals),
    token: p.tokenSymbol,
    tokenAddress: p.tokenAddress,
    decimals: p.tokenDecimals,
    network: network?.shortName ?? null,
    chainId: p.chainId,
    requiredConfirmations: network?.requiredConfirmations ?? null,
    receiveAddress: p.receiveAddress,
    contractAddress: p.contractAddress,
    paymentUri: paymentUriOf(p, network),
    checkoutUrl: checkoutUrlOf(publicBaseUrl, p.id),
    orderId: p.orderId,
    customerEmail: p.customerEmail,
    callbackUrl: p.callbackUrl,
    successUrl: p.successUrl,
    cancelUrl: p.cancelUrl,
    metadata: p.metadata,
    agentId: p.agentId,
    agentOwner: p.agentOwner,
    // Set when priced in fiat: what was asked, and the rate (units per US dollar) it was converted at.
    fiatAmount: p.fiatAmount,
    fiatCurrency: p.fiatCurrency,
    exchangeRate: p.exchangeRate,
    isTest: p.isTest,
    closedReason: p.closedReason,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
    ...(network && railForPayment(network, p)?.walletInstructions(p, network)),
    settlement: presentSettlement(p, network),
    ...sdkFields(p),
  };
}

/**
 * What the published client SDK (`coinley-pay`) reads of a payment besides the spec's
 * fields: the total in whole tokens and where the merchant's share goes. The fee split and
 * `contractCall` come with the rail's wallet instructions.
 */
function sdkFields(p: PaymentRow) {
  return { totalAmount: formatAmount(p.amount, p.tokenDecimals), merchantWallet: p.merchantWallet, recipientWallet: p.merchantWallet };
}

/**
 * A payment as a public-key caller may read it: without the customer's e-mail, the merchant's
 * metadata and its callback URL. The public key ships in browser bundles, so anyone holding
 * it and a payment id would read them; key + secret reads show them.
 */
export function withoutPrivateFields<T extends { customerEmail: unknown; callbackUrl: unknown; metadata: unknown }>(view: T): Omit<T, "customerEmail" | "callbackUrl" | "metadata"> {
  const { customerEmail: _email, callbackUrl: _callback, metadata: _metadata, ...rest } = view;
  return rest;
}

export { paymentUriOf };

import { getAddress, type Address, type Hex } from "viem";
import { encodePaymentTransactions, paymentIdToBytes32 } from "../../rails/evm/settlement/index.ts";
import type { Network } from "../../config/types.ts";
import type { PaymentRow } from "../../db/payments.ts";
import { formatAmount } from "../../domain/amounts.ts";
import { erc20TransferUri } from "../../domain/paymentUri.ts";

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const checksum = (a: string | null) => (a ? getAddress(a) : null);

/** What the customer's wallet needs: the signed intent and the two calls (approve, pay). */
export function presentIntent(p: PaymentRow) {
  if (!p.contractAddress || !p.intentSignature || !p.intentDeadline) return null;
  const intent = {
    paymentId: paymentIdToBytes32(p.id),
    merchant: getAddress(p.merchantWallet),
    token: getAddress(p.tokenAddress),
    amount: p.amount,
    fee: p.feeAmount,
    feeRecipient: getAddress(p.feeRecipient ?? p.merchantWallet),
    deadline: BigInt(Math.floor(p.intentDeadline.getTime() / 1000)),
  };
  const txs = encodePaymentTransactions({
    settlementAddress: getAddress(p.contractAddress),
    token: intent.token,
    intent,
    signature: p.intentSignature as Hex,
  });
  return {
    intent: { ...intent, amount: intent.amount.toString(), fee: intent.fee.toString(), deadline: intent.deadline.toString() },
    signature: p.intentSignature,
    // Send in order: approve the contract for the amount, then pay (or payWithPermit, see /payments/contract).
    transactions: [
      { description: "approve", to: txs.approve.to, data: txs.approve.data, value: "0" },
      { description: "pay", to: txs.pay.to, data: txs.pay.data, value: "0" },
    ],
  };
}

export const paymentUriOf = (p: PaymentRow) =>
  p.receiveAddress ? erc20TransferUri({ token: getAddress(p.tokenAddress), chainId: p.chainId, to: getAddress(p.receiveAddress), amount: p.amount }) : null;

/** Settlement progress (the spec's `paymentSplitterStatus`), plus how the split went. */
export function presentSettlement(p: PaymentRow, network: Network | undefined) {
  return {
    amount: formatAmount(p.amount, p.tokenDecimals),
    currency: p.currency,
    network: network?.shortName ?? p.chainId,
    contractAddress: checksum(p.contractAddress) ?? "",
    merchantWallet: getAddress(p.merchantWallet),
    createdAt: p.createdAt.toISOString(),
    status: p.status === "completed" ? "settled" : p.status === "confirming" ? "confirming" : p.status === "pending" ? "awaiting_payment" : "not_settled",
    merchantAmount: formatAmount(p.amount - p.feeAmount, p.tokenDecimals),
    feeAmount: formatAmount(p.feeAmount, p.tokenDecimals),
    feeRecipient: checksum(p.feeRecipient),
    transactionHash: p.completingTxHash,
  };
}

/** Confirmations counted now, from the completing block to the indexed head (never fewer than stored). */
export function liveConfirmations(p: PaymentRow, head: bigint | null): number {
  const live = p.completingBlock !== null && head !== null && head >= p.completingBlock ? Number(head - p.completingBlock + 1n) : 0;
  return Math.max(p.confirmations, live);
}

/** The spec's Payment status view. `confirmations` is live: counted to the indexed head now. */
export function presentStatus(p: PaymentRow, head: bigint | null) {
  return {
    id: p.id,
    status: p.status,
    amount: formatAmount(p.amount, p.tokenDecimals),
    amountReceived: formatAmount(p.amountReceived, p.tokenDecimals),
    amountRemaining: formatAmount(p.amountRemaining, p.tokenDecimals),
    currency: p.currency,
    confirmations: liveConfirmations(p, head),
    detectedAt: iso(p.detectedAt),
    confirmedAt: iso(p.confirmedAt),
    expiresAt: iso(p.expiresAt),
    bridgeStatus: null,
    transactionHash: p.completingTxHash,
  };
}

/** The full record for the merchant (creation response and `GET /payments/{id}`). */
export function presentPayment(p: PaymentRow, network: Network | undefined, head: bigint | null = null) {
  return {
    ...presentStatus(p, head),
    excessOwed: formatAmount(p.excessOwed, p.tokenDecimals),
    token: p.tokenSymbol,
    tokenAddress: getAddress(p.tokenAddress),
    decimals: p.tokenDecimals,
    network: network?.shortName ?? null,
    chainId: p.chainId,
    requiredConfirmations: network?.requiredConfirmations ?? null,
    receiveAddress: checksum(p.receiveAddress),
    contractAddress: checksum(p.contractAddress),
    paymentUri: paymentUriOf(p),
    orderId: p.orderId,
    customerEmail: p.customerEmail,
    callbackUrl: p.callbackUrl,
    metadata: p.metadata,
    agentId: p.agentId,
    // Set when priced in fiat: what was asked, and the rate (units per US dollar) it was converted at.
    fiatAmount: p.fiatAmount,
    fiatCurrency: p.fiatCurrency,
    exchangeRate: p.exchangeRate,
    isTest: p.isTest,
    closedReason: p.closedReason,
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
    ...presentIntent(p),
    settlement: presentSettlement(p, network),
  };
}

/** Only what a checkout page needs: no merchant data, metadata or e-mail. */
export function presentPublicPayment(p: PaymentRow, network: Network | undefined) {
  return {
    id: p.id,
    status: p.status,
    amount: formatAmount(p.amount, p.tokenDecimals),
    amountReceived: formatAmount(p.amountReceived, p.tokenDecimals),
    amountRemaining: formatAmount(p.amountRemaining, p.tokenDecimals),
    currency: p.currency,
    token: p.tokenSymbol,
    tokenAddress: getAddress(p.tokenAddress),
    decimals: p.tokenDecimals,
    network: network?.shortName ?? null,
    chainId: p.chainId,
    receiveAddress: checksum(p.receiveAddress),
    contractAddress: checksum(p.contractAddress),
    paymentUri: paymentUriOf(p),
    expiresAt: p.expiresAt.toISOString(),
  };
}

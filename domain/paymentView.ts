import { formatAmount } from "./amounts.ts";
import type { BridgeStatusValue } from "./bridgeStatus.ts";
import { depositMethodOf } from "./depositMethod.ts";
import type { PaymentStatus } from "./paymentStatus.ts";

/**
 * The one serialiser of a payment: the merchant's API view (`paymentView`, its status and
 * settlement parts) and the payload events carry (`eventPaymentView`, a projection of the
 * same fields). Amounts are decimal strings in whole tokens, dates ISO 8601, addresses as
 * stored (the rail wrote them canonical, checksummed on EVM, at creation).
 *
 * It takes the row structurally (a payment row satisfies `PaymentRecord`), so `domain/`
 * imports nothing from `db/`; what needs a network or a rail (the payment URI, wallet
 * instructions) is computed by the caller and handed in (`PaymentViewContext`).
 */
export type PaymentRecord = {
  id: string;
  kind: "payment" | "deposit" | "cross_chain" | "x402";
  status: PaymentStatus;
  amount: bigint;
  amountReceived: bigint;
  amountRemaining: bigint;
  excessOwed: bigint;
  lateAmount: bigint;
  feeAmount: bigint;
  currency: string;
  tokenSymbol: string;
  tokenAddress: string;
  tokenDecimals: number;
  chainId: string;
  receiveAddress: string | null;
  contractAddress: string | null;
  merchantWallet: string;
  feeRecipient: string | null;
  orderId: string | null;
  customerEmail: string | null;
  callbackUrl: string | null;
  successUrl: string | null;
  cancelUrl: string | null;
  metadata: Record<string, unknown>;
  agentId: string | null;
  agentOwner: string | null;
  fiatAmount: string | null;
  fiatCurrency: string | null;
  exchangeRate: string | null;
  isTest: boolean;
  closedReason: string | null;
  bridgeStatus: BridgeStatusValue | null;
  confirmations: number;
  completingTxHash: string | null;
  detectedAt: Date | null;
  confirmedAt: Date | null;
  expiresAt: Date;
  createdAt: Date;
  updatedAt: Date;
};

/** The status view's columns (the batched status read selects only these). */
export type PaymentStatusRecord = Pick<
  PaymentRecord,
  "id" | "status" | "amount" | "amountReceived" | "amountRemaining" | "currency" | "tokenDecimals" | "confirmations" | "detectedAt" | "confirmedAt" | "expiresAt" | "bridgeStatus" | "completingTxHash"
>;

/** The network facts a view shows (null fields when the payment's network is no longer configured). */
export type ViewNetwork = { shortName: string; requiredConfirmations: number };

/** What the API view needs beyond the row: its network, and what its rail and the public URL make of it. */
export type PaymentViewContext = {
  network: ViewNetwork | undefined;
  /** The QR/deep-link URI (null when the network has none). */
  paymentUri: string | null;
  /** The rail's wallet instructions, spread into the view (the client SDK's fee split and `contractCall`). */
  walletInstructions: Record<string, unknown> | null | undefined;
  /** The hosted checkout page of the payment. */
  checkoutUrl: string;
};

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** What was asked, what arrived and what is still missing, in whole tokens. */
export const amountsOf = (p: Pick<PaymentRecord, "amount" | "amountReceived" | "amountRemaining" | "tokenDecimals">) => ({
  amount: formatAmount(p.amount, p.tokenDecimals),
  amountReceived: formatAmount(p.amountReceived, p.tokenDecimals),
  amountRemaining: formatAmount(p.amountRemaining, p.tokenDecimals),
});

/** The spec's Payment status view. `confirmations` is what reconciliation last computed (`settle`). */
export function paymentStatusView(p: PaymentStatusRecord) {
  return {
    id: p.id,
    status: p.status,
    ...amountsOf(p),
    currency: p.currency,
    confirmations: p.confirmations,
    detectedAt: iso(p.detectedAt),
    confirmedAt: iso(p.confirmedAt),
    expiresAt: iso(p.expiresAt),
    bridgeStatus: p.bridgeStatus ?? null,
    transactionHash: p.completingTxHash,
  };
}

/** Settlement progress (the spec's `paymentSplitterStatus`), plus how the split went. */
export function settlementView(p: PaymentRecord, network: Pick<ViewNetwork, "shortName"> | undefined) {
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

/** The fields of the payment that need nothing but its row: the API view and the event payload both take theirs from here. */
function recordFields(p: PaymentRecord) {
  const units = (v: bigint) => formatAmount(v, p.tokenDecimals);
  return {
    ...paymentStatusView(p),
    excessOwed: units(p.excessOwed),
    lateAmount: units(p.lateAmount),
    token: p.tokenSymbol,
    tokenAddress: p.tokenAddress,
    decimals: p.tokenDecimals,
    chainId: p.chainId,
    receiveAddress: p.receiveAddress,
    contractAddress: p.contractAddress,
    depositMethod: depositMethodOf(p.kind),
    orderId: p.orderId,
    customerEmail: p.customerEmail,
    callbackUrl: p.callbackUrl,
    successUrl: p.successUrl,
    cancelUrl: p.cancelUrl,
    metadata: p.metadata,
    // The agent that created the payment, and who answers for it (null: not an agent's).
    agentId: p.agentId,
    agentOwner: p.agentOwner,
    // Set when priced in fiat: what was asked, and the rate (units per US dollar) it was converted at.
    fiatAmount: p.fiatAmount ?? null,
    fiatCurrency: p.fiatCurrency ?? null,
    exchangeRate: p.exchangeRate,
    isTest: p.isTest,
    closedReason: p.closedReason,
    createdAt: iso(p.createdAt)!,
    updatedAt: iso(p.updatedAt)!,
  };
}

/** The full record for the merchant (creation response and `GET /payments/{id}`). */
export function paymentView(p: PaymentRecord, context: PaymentViewContext) {
  const { network } = context;
  // The API has never shown these two: the deposit view and the events do.
  const { lateAmount: _late, depositMethod: _method, ...fields } = recordFields(p);
  return {
    ...fields,
    network: network?.shortName ?? null,
    requiredConfirmations: network?.requiredConfirmations ?? null,
    paymentUri: context.paymentUri,
    checkoutUrl: context.checkoutUrl,
    ...context.walletInstructions,
    settlement: settlementView(p, network),
    // What the published client SDK (`coinley-pay`) reads besides the spec's fields: the total in
    // whole tokens and where the merchant's share goes (the fee split comes with the wallet instructions).
    totalAmount: formatAmount(p.amount, p.tokenDecimals),
    merchantWallet: p.merchantWallet,
    recipientWallet: p.merchantWallet,
  };
}

/**
 * The payment as an event carries it (`data.payment`, docs/webhooks.md): a projection of
 * `recordFields`, chosen here. Not the customer's e-mail, the return and callback URLs, the
 * contract address or the exchange rate: a webhook body goes to every endpoint the merchant
 * registered, and the feed keeps it. Written out rather than picked by a list of names: the
 * reconcile job builds thousands a second.
 */
export function eventPaymentView(p: PaymentRecord) {
  const f = recordFields(p);
  return {
    id: f.id,
    status: f.status,
    amount: f.amount,
    amountReceived: f.amountReceived,
    amountRemaining: f.amountRemaining,
    excessOwed: f.excessOwed,
    lateAmount: f.lateAmount,
    currency: f.currency,
    token: f.token,
    tokenAddress: f.tokenAddress,
    decimals: f.decimals,
    chainId: f.chainId,
    confirmations: f.confirmations,
    transactionHash: f.transactionHash,
    receiveAddress: f.receiveAddress,
    depositMethod: f.depositMethod,
    orderId: f.orderId,
    metadata: f.metadata,
    agentId: f.agentId,
    agentOwner: f.agentOwner,
    fiatAmount: f.fiatAmount,
    fiatCurrency: f.fiatCurrency,
    isTest: f.isTest,
    closedReason: f.closedReason,
    bridgeStatus: f.bridgeStatus,
    detectedAt: f.detectedAt,
    confirmedAt: f.confirmedAt,
    expiresAt: f.expiresAt,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
  };
}

export type EventPaymentView = ReturnType<typeof eventPaymentView>;

/**
 * A payment as a public-key caller may read it: without the customer's e-mail, the merchant's
 * metadata and its callback URL. The public key ships in browser bundles, so anyone holding
 * it and a payment id would read them; key + secret reads show them.
 */
export function withoutPrivateFields<T extends { customerEmail: unknown; callbackUrl: unknown; metadata: unknown }>(view: T): Omit<T, "customerEmail" | "callbackUrl" | "metadata"> {
  const { customerEmail: _email, callbackUrl: _callback, metadata: _metadata, ...rest } = view;
  return rest;
}

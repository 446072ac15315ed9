import type { Network } from "../../config/types.ts";
import type { PublicPaymentRecord } from "../../db/publicPayments.ts";
import { formatAmount } from "../../domain/amounts.ts";
import { refundMinimum } from "../../domain/refundable.ts";
import { chainFor, methodFor } from "../../rails/index.ts";
import { presentCheckoutBridge } from "./checkoutBridge.ts";
import { owedBack, refundedOf } from "./deposit.ts";
import { amountsOf } from "../../domain/paymentView.ts";
import { paymentUriOf } from "./payment.ts";

/**
 * `GET /payments/public/{id}` and its event stream: what a checkout page in the
 * customer's browser shows, and nothing else. The payment id is the only credential, so
 * every field is one the customer may see: the amounts and chain facts of their own
 * payment, the merchant's name (whom they pay), the merchant's return links (meant for
 * the customer's browser), what is owed back to them, and the wallet transactions to
 * pay with (they carry what the chain will show anyway). Never metadata, the customer's
 * e-mail, the callback URL, the order id or anything about keys.
 *
 * A cross-chain payment's customer pays on another chain: `crossChain` says where and how
 * much (the bridge's deposit address on `originNetwork(chainId)`), and the QR code and the
 * wallet button ask for that, while the amounts stay what reaches the merchant.
 */
export function presentPublicPayment(
  { payment: p, merchantName, refunds: made, bridge }: PublicPaymentRecord,
  network: Network | undefined,
  networkOf: (chainId: string) => Network | undefined,
  refunds: { minimum: string },
  networkDelayed: boolean,
) {
  const units = (v: bigint) => formatAmount(v, p.tokenDecimals);
  const method = network && methodFor(network, p.kind);
  const holdsFunds = method?.holdsFunds?.(p) === true;
  const crossChain = p.kind === "cross_chain" && bridge ? presentCheckoutBridge(p, bridge, networkOf(bridge.originChainId)) : null;
  // While money is still due, a QR code asks for what is left of it (the full amount before anything arrived).
  const remainingPaymentUri = crossChain
    ? crossChain.due
      ? crossChain.paymentUri
      : null
    : p.status === "pending" && p.amountRemaining > 0n
      ? (method?.paymentUri?.({ ...p, amount: p.amountRemaining }) ?? null)
      : null;
  return {
    id: p.id,
    status: p.status,
    ...amountsOf(p),
    // What is still owed back to the customer: over- or late payments, or all of an ended payment, less refunds sent or under way.
    excessOwed: units(owedBack(p, refundedOf(made))),
    currency: p.currency,
    token: p.tokenSymbol,
    tokenAddress: p.tokenAddress,
    decimals: p.tokenDecimals,
    network: network?.shortName ?? null,
    networkName: network?.name ?? null,
    chainId: p.chainId,
    confirmations: p.confirmations,
    requiredConfirmations: network?.requiredConfirmations ?? null,
    depositMethod: p.kind === "deposit" ? "deposit_address" : "settlement_contract",
    // Paid straight into the merchant's wallet (Solana Pay): only the payment URI identifies it, and refunds are the merchant's.
    directToMerchant: method ? !holdsFunds && p.receiveAddress !== null : false,
    receiveAddress: p.receiveAddress,
    contractAddress: p.contractAddress,
    paymentUri: crossChain ? crossChain.paymentUri : paymentUriOf(p, network),
    remainingPaymentUri,
    transactionHash: p.completingTxHash,
    merchantName,
    successUrl: p.successUrl,
    cancelUrl: p.cancelUrl,
    fiatAmount: p.fiatAmount,
    fiatCurrency: p.fiatCurrency,
    isTest: p.isTest,
    expiresAt: p.expiresAt.toISOString(),
    // The least this service refunds from the payment's address (REFUND_MIN_AMOUNT); null where it refunds nothing itself.
    refundMinimum: holdsFunds && !crossChain ? units(refundMinimum(refunds.minimum, p.tokenDecimals)) : null,
    refunds: made.map((r) => ({ status: r.status, amount: units(r.amount), transactionHash: r.txHash, createdAt: r.createdAt.toISOString() })),
    // The browser wallet interface that signs a refund request for another address (`eip1193`, `solana`); null where this service refunds nothing itself.
    refundSigner: holdsFunds && !crossChain ? (chainFor(network!)?.messageSigner ?? null) : null,
    // The "Pay with wallet" button's transactions for what is due now (null: nothing to send).
    wallet: crossChain ? crossChain.wallet : (method?.checkoutWallet?.(p, new Date()) ?? null),
    // The payment's chain is lagging or down (`/payments/health`): the page says "network delayed" until it recovers.
    networkDelayed,
    crossChain: crossChain && {
      network: crossChain.network,
      networkName: crossChain.networkName,
      chainId: crossChain.chainId,
      token: crossChain.token,
      tokenAddress: crossChain.tokenAddress,
      decimals: crossChain.decimals,
      depositAddress: crossChain.depositAddress,
      amountToSend: crossChain.amountToSend,
      bridgeStatus: crossChain.bridgeStatus,
    },
  };
}

export type PublicPaymentView = ReturnType<typeof presentPublicPayment>;

import type { Network } from "../../config/types.ts";
import type { BridgeRequestRow } from "../../db/bridgeRequests.ts";
import type { PaymentRow } from "../../db/schema/index.ts";
import { formatAmount } from "../../domain/amounts.ts";
import { methodFor } from "../../rails/index.ts";

/**
 * What the checkout page of a cross-chain payment asks the customer for: the bridge's
 * deposit address on the origin chain and the origin token amount to send there (the
 * bridge's fees included), as a QR/wallet link and a browser-wallet transfer on the
 * origin chain, both built by the origin network's own deposit-address method from the deposit as if it were
 * a deposit payment there. The payment row itself is the destination leg and asks for
 * nothing. Asking stops once a deposit has been seen or the payment is no longer open.
 */
export function presentCheckoutBridge(p: PaymentRow, request: BridgeRequestRow, origin: Network | undefined) {
  const due = p.status === "pending" && request.bridgeStatus === "awaiting_deposit";
  const method = origin && methodFor(origin, "deposit");
  // The deposit as the origin network sees a deposit payment: a plain transfer of amountToSend to the deposit address.
  const asDeposit: PaymentRow = {
    ...p,
    kind: "deposit",
    chainId: request.originChainId,
    tokenSymbol: request.originTokenSymbol,
    tokenAddress: request.originTokenAddress,
    tokenDecimals: request.originTokenDecimals,
    receiveAddress: request.depositAddress,
    contractAddress: null,
    intentSignature: null,
    intentDeadline: null,
    amount: request.amountToSend,
    amountReceived: 0n,
    amountRemaining: request.amountToSend,
    status: "pending",
  };
  return {
    network: origin?.shortName ?? null,
    networkName: origin?.name ?? null,
    chainId: request.originChainId,
    token: request.originTokenSymbol,
    tokenAddress: request.originTokenAddress,
    decimals: request.originTokenDecimals,
    depositAddress: request.depositAddress,
    amountToSend: formatAmount(request.amountToSend, request.originTokenDecimals),
    bridgeStatus: request.bridgeStatus,
    paymentUri: method?.paymentUri?.(asDeposit) ?? null,
    due,
    wallet: due ? (method?.checkoutWallet?.(asDeposit, new Date()) ?? null) : null,
  };
}

export type CheckoutBridgeView = ReturnType<typeof presentCheckoutBridge>;

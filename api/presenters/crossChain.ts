import type { Network } from "../../config/types.ts";
import type { BridgeFillRow, BridgeRequestRow } from "../../db/bridgeRequests.ts";
import { bridgeSnapshot } from "../../db/bridgeSnapshot.ts";
import type { PaymentRow } from "../../db/payments.ts";
import { presentNetwork } from "./network.ts";
import { paymentStatusView } from "../../domain/paymentView.ts";

/**
 * A chain a customer can pay from, with its tokens and where a bridge takes payments from it;
 * `minimums[i]` is the least a payment to `destinations[i]` can be (null: not stated before a quote).
 */
export const presentCrossChainSource = (n: Network, destinations: Network[], minimums: Array<string | null>) => ({
  ...presentNetwork(n),
  /** The value to send as `originChainId`. */
  originChainId: Number(n.chainId),
  tokens: n.tokens.map((t) => ({ symbol: t.symbol, name: t.name, contractAddress: t.address, decimals: t.decimals })),
  destinations: destinations.map((d) => d.shortName),
  /** Per destination, the least `amount` (what the merchant receives) the bridge takes; below it creation answers NO_ROUTE. */
  routes: destinations.map((d, i) => ({ destination: d.shortName, minimumAmount: minimums[i] ?? null })),
});

/**
 * Bridge progress of a cross-chain payment: the payment's status view (its amounts are
 * the destination leg: what reached the merchant's wallet) with the bridge and both legs.
 */
export function presentCrossChainStatus(p: PaymentRow, network: Network | undefined, request: BridgeRequestRow, fills: readonly BridgeFillRow[]) {
  return {
    ...paymentStatusView(p),
    network: network?.shortName ?? null,
    chainId: p.chainId,
    requiredConfirmations: network?.requiredConfirmations ?? null,
    merchantWallet: p.merchantWallet,
    closedReason: p.closedReason,
    bridge: bridgeSnapshot(request, fills, { decimals: p.tokenDecimals, currency: p.tokenSymbol }),
  };
}

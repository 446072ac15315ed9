import { formatAmount } from "../domain/amounts.ts";
import type { BridgeFillRow, BridgeRequestRow } from "./schema/index.ts";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * A cross-chain payment's bridge as merchants see it, in the status view and in
 * `bridge.updated` events: where the customer pays, and each leg with its transactions
 * and what was verified on chain (amounts in whole tokens of each leg's token).
 */
export function bridgeSnapshot(r: BridgeRequestRow, fills: readonly BridgeFillRow[], destination: { decimals: number; currency: string }) {
  const origin = (units: bigint) => formatAmount(units, r.originTokenDecimals);
  return {
    adapter: r.adapter,
    requestId: r.requestId,
    status: r.bridgeStatus,
    progress: r.progress,
    relayDepositAddress: r.depositAddress,
    amountToSend: r.amountToSend.toString(),
    amountToSendFormatted: origin(r.amountToSend),
    expiresAt: iso(r.expiresAt),
    origin: {
      chainId: Number(r.originChainId),
      currency: r.originTokenSymbol,
      tokenAddress: r.originTokenAddress,
      depositTxHashes: r.originTxHashes,
      amountDeposited: origin(r.depositAmount),
      depositedAt: iso(r.depositedAt),
    },
    destination: {
      currency: destination.currency,
      fillTxHashes: r.destinationTxHashes,
      amountFilled: formatAmount(
        fills.reduce((sum, f) => sum + f.amount, 0n),
        destination.decimals,
      ),
    },
    refund: {
      /** Null: each deposit goes back to its sender. */
      address: r.refundTo,
      refundTxHashes: r.refundTxHashes,
      amountRefunded: origin(r.refundedAmount),
      requestedAt: iso(r.refundRequestedAt),
    },
    failReason: r.failReason,
    updatedAt: iso(r.bridgeUpdatedAt ?? r.updatedAt),
  };
}

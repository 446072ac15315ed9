import type { Network } from "../../config/types.ts";
import type { PaymentRow } from "../../db/payments.ts";
import type { TransferOutRow } from "../../db/transfersOut.ts";
import { formatAmount } from "../../domain/amounts.ts";
import { depositMethodOf } from "../../domain/depositMethod.ts";
import { amountsOf } from "../../domain/paymentView.ts";

const presentTransfer = (t: TransferOutRow, decimals: number) => ({
  id: t.id,
  status: t.status,
  amount: formatAmount(t.amount, decimals),
  to: t.toAddress,
  reason: t.reason,
  transactionHash: t.txHash,
  blockNumber: t.blockNumber?.toString() ?? null,
  error: t.error,
  createdAt: t.createdAt.toISOString(),
});

/** Smallest units refunded to the customer or on their way (failed refunds moved nothing). */
export const refundedOf = (transfers: readonly TransferOutRow[]): bigint =>
  transfers.filter((t) => t.kind === "refund" && t.status !== "failed").reduce((s, t) => s + t.amount, 0n);

/** What is still owed the customer: over- and late payments (all of it for an ended payment), less refunds sent or under way. */
export const owedBack = (p: Pick<PaymentRow, "excessOwed">, refunded: bigint): bigint => (p.excessOwed > refunded ? p.excessOwed - refunded : 0n);

/**
 * The spec's Deposit payment view. `excessOwed` is what is still owed the customer:
 * over- and late payments (or all of it for an expired payment), less refunds sent or
 * under way.
 */
export function presentDeposit(p: PaymentRow, network: Network | undefined, transfers: TransferOutRow[]) {
  const refunds = transfers.filter((t) => t.kind === "refund");
  const refunded = refundedOf(refunds);
  const isDeposit = p.kind === "deposit";
  return {
    id: p.id,
    status: p.status,
    ...amountsOf(p),
    excessOwed: formatAmount(owedBack(p, refunded), p.tokenDecimals),
    lateAmount: formatAmount(p.lateAmount, p.tokenDecimals),
    refunded: formatAmount(refunded, p.tokenDecimals),
    // Null for a payment made through the settlement contract (or a bridge), as the spec says.
    depositAddress: isDeposit ? p.receiveAddress : null,
    depositMethod: depositMethodOf(p.kind),
    currency: p.currency,
    token: p.tokenSymbol,
    network: network?.shortName ?? null,
    confirmations: p.confirmations,
    requiredConfirmations: network?.requiredConfirmations ?? null,
    expiresAt: p.expiresAt.toISOString(),
    sweeps: transfers.filter((t) => t.kind === "sweep").map((t) => presentTransfer(t, p.tokenDecimals)),
    refunds: refunds.map((t) => presentTransfer(t, p.tokenDecimals)),
    ...depositHashes(p, transfers),
  };
}

/**
 * The transaction hashes the client SDK and the MCP server poll for: `depositTxHash` (the
 * transfer that made the amount whole, from `confirming` on), `sweepTxHash` (the newest
 * confirmed sweep to the merchant), `transactionHash` (the same as the status view's), and
 * `isExpired`.
 */
function depositHashes(p: PaymentRow, transfers: readonly TransferOutRow[]) {
  const swept = transfers.filter((t) => t.kind === "sweep" && t.status === "confirmed" && t.txHash !== null);
  return {
    transactionHash: p.completingTxHash,
    depositTxHash: p.completingTxHash,
    sweepTxHash: swept.at(-1)?.txHash ?? null,
    isExpired: p.status === "expired",
  };
}

export { presentTransfer };

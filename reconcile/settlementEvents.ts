import type { NewPaymentEvent } from "../db/paymentEvents.ts";
import type { PaymentRow } from "../db/payments.ts";
import { eventsForTransition } from "../domain/paymentEvents.ts";
import type { Settlement } from "../domain/settle.ts";

/**
 * The events of one reconciled payment: `eventsForTransition` between the stored row
 * and the settlement about to be written, each carrying the payment as it will be.
 */
export function settlementEvents(
  before: PaymentRow,
  change: { after: Settlement; completingTx: string | null; completedVia: string | null; now: Date; closed?: { status: "failed"; reason: string; at: Date } | null },
): NewPaymentEvent[] {
  const { after } = change;
  const types = eventsForTransition(before, { ...after, amount: before.amount });
  if (types.length === 0) return [];
  const payment: PaymentRow = {
    ...before,
    status: after.status,
    amountReceived: after.amountReceived,
    amountRemaining: after.amountRemaining,
    excessOwed: after.excessOwed,
    lateAmount: after.lateAmount,
    confirmations: after.confirmations,
    completingTxHash: change.completingTx,
    completedVia: change.completedVia as PaymentRow["completedVia"],
    completingBlock: after.completingCredit?.blockNumber ?? null,
    detectedAt: after.detectedAt,
    confirmedAt: after.confirmedAt,
    ...(change.closed ? { closedStatus: change.closed.status, closedReason: change.closed.reason, closedAt: change.closed.at } : {}),
    reconciledAt: change.now,
    updatedAt: change.now,
  };
  // A revert says whether it undid a completed payment (a reorg deeper than the required
  // confirmations) and what it undid.
  const reverted = {
    afterCompletion: before.status === "completed",
    previous: { status: before.status, amountReceived: before.amountReceived, transactionHash: before.completingTxHash, blockNumber: before.completingBlock },
  };
  return types.map((type) => (type === "payment.reverted" ? { payment, type, extra: { reverted } } : { payment, type }));
}

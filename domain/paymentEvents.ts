/**
 * Which events a payment's change of state produces. Pure: the same before/after
 * always gives the same list, in the order a merchant should read them.
 */
import type { PaymentStatus } from "./paymentStatus.ts";

export const paymentEventTypes = [
  "payment.created",
  "payment.detected",
  "payment.confirmed",
  "payment.completed",
  "payment.expired",
  "payment.failed",
  "payment.cancelled",
  "payment.underpaid",
  "payment.overpaid",
  "payment.late_payment",
  "payment.forwarded",
  "payment.refunded",
  "payment.forward_reverted",
  "payment.refund_reverted",
  "payment.reverted",
  "bridge.updated",
  "refund.requested",
  // Events of the account, not of a payment (their `paymentId` is null): a dangerous change made
  // in the dashboard, and the test event a merchant sends to check an endpoint.
  "account.changed",
  "test.ping",
] as const;

export type PaymentEventType = (typeof paymentEventTypes)[number];

export const isPaymentEventType = (value: string): value is PaymentEventType => (paymentEventTypes as readonly string[]).includes(value);

/** The part of a payment that events are computed from; amounts in the token's smallest unit. */
export type PaymentEventState = {
  status: PaymentStatus;
  /** Amount owed. */
  amount: bigint;
  /** Everything received, on time or late. */
  amountReceived: bigint;
  /** Part of `amountReceived` that arrived after the payment could use it. */
  lateAmount: bigint;
};

/** What arrived in time to count toward the payment. */
const onTime = (s: PaymentEventState) => s.amountReceived - s.lateAmount;
/** What arrived in time beyond the amount (an overpayment, as opposed to late money). */
const onTimeExcess = (s: PaymentEventState) => (onTime(s) > s.amount ? onTime(s) - s.amount : 0n);

/** Progress of a live payment; a step back is a reorg removing evidence. */
const progress: Partial<Record<PaymentEventState["status"], number>> = { pending: 0, confirming: 1, completed: 2 };
const ended = (status: PaymentEventState["status"]) => status === "expired" || status === "failed" || status === "cancelled";

/**
 * Events for one change of a payment (`payment.created`, `forwarded`, `refunded` and
 * `refund.requested` come from the actions that cause them, not from here):
 * - `reverted`: evidence was removed or moved (a reorg): less received, the status went back,
 *   or a payment that had the full amount in time ended;
 * - `detected`: the first on-time funds appeared;
 * - `confirmed`: the full amount is seen (confirming), also when it jumps straight to completed;
 * - `completed`: the required confirmations were reached;
 * - `overpaid`: completed holding more than the amount in time (again if more arrives in time later);
 * - `expired` / `failed` / `cancelled`: the payment ended that way;
 * - `underpaid`: a partial amount grew while pending or after the end (read late), or the payment ended holding a partial amount;
 * - `late_payment`: money arrived after the payment could use it (`lateAmount` grew).
 */
export function eventsForTransition(before: PaymentEventState, after: PaymentEventState): PaymentEventType[] {
  const events: PaymentEventType[] = [];
  const statusChanged = before.status !== after.status;
  // A step back among live states, or a payment that had the full amount in time ending
  // (a reorg moved it past the deadline); an ended payment that turns out paid in time is new evidence, not a reorg.
  const wentBack = (progress[after.status] ?? 3) < (progress[before.status] ?? -1) || ((before.status === "confirming" || before.status === "completed") && ended(after.status));
  if (after.amountReceived < before.amountReceived || after.lateAmount < before.lateAmount || wentBack) events.push("payment.reverted");

  if (onTime(before) === 0n && onTime(after) > 0n) events.push("payment.detected");
  const reached = (s: PaymentEventState) => s.status === "confirming" || s.status === "completed";
  if (reached(after) && !reached(before)) events.push("payment.confirmed");
  if (after.status === "completed" && before.status !== "completed") events.push("payment.completed");
  if (after.status === "completed" && onTimeExcess(after) > 0n && (before.status !== "completed" || onTimeExcess(after) > onTimeExcess(before))) {
    events.push("payment.overpaid");
  }
  if (statusChanged && ended(after.status)) events.push(`payment.${after.status}` as PaymentEventType);

  const partial = onTime(after) > 0n && onTime(after) < after.amount;
  // An ended payment's on-time amount grows when ingest reads, after the end, money stamped before it.
  if (partial && (((after.status === "pending" || ended(after.status)) && onTime(after) > onTime(before)) || (ended(after.status) && statusChanged))) {
    events.push("payment.underpaid");
  }
  if (after.lateAmount > before.lateAmount) events.push("payment.late_payment");
  return events;
}

/** Whether an endpoint's event filter (`["*"]` or a list of types) takes this event. */
export const filterMatches = (filter: readonly string[], type: string) => filter.includes("*") || filter.includes(type);

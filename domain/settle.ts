/**
 * The one place a payment's state is computed from on-chain evidence. Pure: the same
 * payment, credits, head and clock always give the same answer, so a reorg that
 * removes a credit simply gives the earlier answer on the next run.
 */

import type { PaymentStatus } from "./paymentStatus.ts";

/** A transfer of the payment's token that counts toward it (settlement event or deposit). */
export type Credit = {
  /** Smallest units. */
  amount: bigint;
  blockNumber: bigint;
  logIndex: number;
  /** Block timestamp. */
  timestamp: Date;
  /** Needs no confirmations: final by construction (a sandbox simulation), never a chain transfer. */
  final?: boolean;
};

export type SettleInput = {
  /** Amount owed, smallest units. */
  amount: bigint;
  expiresAt: Date;
  /** Set when the merchant closed the payment (`/payments/fail`): it no longer accepts funds. */
  closed: { status: "failed" | "cancelled" | "expired"; at: Date } | null;
  /** Kept from the previous run so the moment of completion is not rewritten. */
  confirmedAt: Date | null;
  credits: readonly Credit[];
  /** Latest block the indexer has verified on the payment's chain; null if unknown. */
  head: bigint | null;
  requiredConfirmations: number;
  now: Date;
  /**
   * When the customer paid money that has not reached the payment's chain yet (a bridge
   * fill under way); null or absent when nothing is on its way. Paid before the deadline,
   * it keeps the payment `pending` past its expiry until it arrives or is refunded.
   */
  inTransitSince?: Date | null;
  /**
   * The money paid toward the payment on its way to its chain was given back or lost (the
   * bridge carrying it refunded or failed). With none of it arrived, and the merchant not
   * having closed the payment first, the payment ends `failed`.
   */
  transitFailed?: boolean;
  /**
   * Every credit stamped at or before this time has been ingested (the indexer's block
   * time; held back while ingest is stalled). The payment expires only once it has
   * passed the deadline: money paid in time in a block not read yet must not meet a
   * `payment.expired`. Null or absent: no bound known, the clock alone decides.
   */
  evidenceThrough?: Date | null;
  /**
   * The payment was expired by the clock already (a run that had the evidence to say so):
   * a horizon held back since then (a stall opened later) does not take it back to
   * `pending` — the merchant was told `payment.expired`. New money can still complete it.
   */
  expiredBefore?: boolean;
  /**
   * Ingest reads the chain in order (the EVM indexer; the default): a credit it holds,
   * stamped after the deadline, proves every block before it read. False where evidence is
   * found out of order (Solana: a transaction the customer submitted, a lookup, a scan of one
   * address ahead of another), and the finality watermark is no read-through: such a credit
   * proves only as much as `evidenceThrough` says.
   */
  readsInOrder?: boolean;
};

export type Settlement = {
  status: PaymentStatus;
  /** Everything that arrived, on time or late. */
  amountReceived: bigint;
  /** What the customer still has to send while the payment can still complete. */
  amountRemaining: bigint;
  /** Owed back to the customer: overpayment, late money, or all of it when the merchant is owed nothing. */
  excessOwed: bigint;
  /** Part of `amountReceived` that arrived after the payment could no longer use it. */
  lateAmount: bigint;
  /** Blocks on top of (and including) the block that completed the amount; 0 before that. */
  confirmations: number;
  detectedAt: Date | null;
  confirmedAt: Date | null;
  /** The credit that made the amount whole, if any. */
  completingCredit: Credit | null;
};

const byChainOrder = (a: Credit, b: Credit) =>
  a.blockNumber === b.blockNumber ? a.logIndex - b.logIndex : a.blockNumber < b.blockNumber ? -1 : 1;

/** A payment the merchant closed before it had the full amount: nothing is due, and everything received is owed back. */
export const closedAmounts = (amountReceived: bigint) => ({ amountRemaining: 0n, excessOwed: amountReceived });

/**
 * pending → confirming (full amount seen, not yet deep enough) → completed; expired
 * when time runs out first and ingest has read the chain past the deadline (unless
 * money paid in time is still in transit); failed/
 * cancelled when the merchant closed it; failed when the money on its way (a bridge)
 * was given back or lost with none of it arrived. A credit
 * counts toward completion only if its block was produced before the deadline
 * (expiry or closing); anything else is late and owed back, never dropped.
 */
export function settle(input: SettleInput): Settlement {
  const credits = [...input.credits].sort(byChainOrder);
  const amountReceived = credits.reduce((sum, c) => sum + c.amount, 0n);
  const deadline = input.closed && input.closed.at < input.expiresAt ? input.closed.at : input.expiresAt;

  let onTime = 0n;
  let completingCredit: Credit | null = null;
  for (const credit of credits) {
    if (credit.timestamp > deadline) continue;
    onTime += credit.amount;
    if (onTime >= input.amount) {
      completingCredit = credit;
      break;
    }
  }
  const lateAmount = credits.filter((c) => c.timestamp > deadline).reduce((s, c) => s + c.amount, 0n);
  const detectedAt = credits.length > 0 ? credits.reduce((min, c) => (c.timestamp < min ? c.timestamp : min), credits[0]!.timestamp) : null;

  if (completingCredit) {
    const confirmations = completingCredit.final
      ? Math.max(1, input.requiredConfirmations)
      : input.head === null || input.head < completingCredit.blockNumber
        ? 0
        : Number(input.head - completingCredit.blockNumber + 1n);
    const completed = confirmations >= Math.max(1, input.requiredConfirmations);
    return {
      status: completed ? "completed" : "confirming",
      amountReceived,
      amountRemaining: 0n,
      // Everything beyond the amount is owed back, whether it came early (overpaid) or late.
      excessOwed: amountReceived - input.amount,
      lateAmount,
      confirmations,
      detectedAt,
      confirmedAt: completed ? (input.confirmedAt ?? input.now) : null,
      completingCredit,
    };
  }

  const base = { amountReceived, confirmations: 0, detectedAt, confirmedAt: null, completingCredit: null };
  if (input.closed) {
    return { ...base, status: input.closed.status, ...closedAmounts(amountReceived), lateAmount };
  }
  // Its carrier gave the money back or lost it, none of it here: nothing can complete it now (also past its expiry).
  if (input.transitFailed && amountReceived === 0n) {
    return { ...base, status: "failed", ...closedAmounts(amountReceived), lateAmount };
  }
  // Paid in time and on its way (bridged): the payment waits for it instead of expiring.
  if (input.inTransitSince && input.inTransitSince <= deadline) {
    return { ...base, status: "pending", amountRemaining: input.amount - onTime, excessOwed: 0n, lateAmount };
  }
  // A block stamped after the expiry proves the chain has passed it, whatever our clock says,
  // once ingest (which reads blocks in order) has read it: every block before it is read too.
  // A credit above the indexed head (a transaction the customer submitted) proves nothing of
  // the blocks before it. The clock alone expires it only once ingest has read up to the expiry.
  // Strictly past it: block times are whole seconds, and blocks (Solana slots, fast L2s) share
  // one; another block stamped with the horizon's second may still be unread.
  const evidenceComplete = input.expiredBefore || !input.evidenceThrough || input.evidenceThrough > input.expiresAt;
  const readThrough = (c: Credit) => input.readsInOrder !== false || (input.evidenceThrough != null && input.evidenceThrough >= c.timestamp);
  const ingestedLate = credits.some((c) => c.timestamp > input.expiresAt && (c.final || (input.head !== null && c.blockNumber <= input.head)) && readThrough(c));
  if ((input.now > input.expiresAt && evidenceComplete) || ingestedLate) {
    return { ...base, status: "expired", amountRemaining: 0n, excessOwed: amountReceived, lateAmount };
  }
  return { ...base, status: "pending", amountRemaining: input.amount - onTime, excessOwed: 0n, lateAmount };
}

import { Histogram } from "prom-client";
import { registry } from "./registry.ts";

/**
 * Receipt → status: from the block time of the credit that changed a payment to the
 * reconcile commit that made the change visible, by network and by what became visible
 * (`detected`: the first credit; `completed`: the credit that completed the amount, once
 * final). Sandbox simulations are no receipt and are left out.
 */
export const receiptToStatusSeconds = new Histogram({
  name: "stablepay_receipt_to_status_seconds",
  help: "Seconds from the credited block's timestamp to the reconcile commit that made the payment's new status visible.",
  labelNames: ["network", "transition"] as const,
  buckets: [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1800, 3600],
  registers: [registry],
});

/** How long one reconcile (or expire) job took, end to end, and how it ended. */
export const reconcileDuration = new Histogram({
  name: "stablepay_reconcile_duration_seconds",
  help: "Duration of one reconcile job (lock, load evidence, settle, persist with events), by job name and outcome.",
  labelNames: ["job", "outcome"] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/** What a reconcile run changed about one payment, as far as latency is concerned. */
export type ReconciledPayment = {
  before: { chainId: string; detectedAt: Date | null; status: string };
  after: { status: string; detectedAt: Date | null; completingCredit: { timestamp: Date; source?: string } | null };
};

/**
 * Observes receipt → status for the payments a committed reconcile run first detected or
 * completed. `networkOf` names a chain id's network (the label); `committedAt` is the commit.
 */
export function observeReceiptToStatus(
  reconciled: Iterable<ReconciledPayment>,
  networkOf: (chainId: string) => string,
  committedAt: Date = new Date(),
): void {
  for (const { before, after } of reconciled) {
    const network = networkOf(before.chainId);
    const credit = after.completingCredit;
    // A sandbox simulation is one final credit of the whole amount: first and completing, and no receipt.
    if (credit?.source === "simulation") continue;
    if (before.detectedAt === null && after.detectedAt !== null) {
      receiptToStatusSeconds.observe({ network, transition: "detected" }, seconds(after.detectedAt, committedAt));
    }
    if (after.status === "completed" && before.status !== "completed" && credit) {
      receiptToStatusSeconds.observe({ network, transition: "completed" }, seconds(credit.timestamp, committedAt));
    }
  }
}

/** Never negative: a block stamped a little in the future (clock skew) counts as zero. */
const seconds = (from: Date, to: Date) => Math.max(0, (to.getTime() - from.getTime()) / 1000);

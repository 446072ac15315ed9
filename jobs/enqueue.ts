import { createHash } from "node:crypto";
import type { Queue } from "bullmq";
import type { ReconcileJobData } from "./queues.ts";

const BATCH = 250;

/**
 * Enqueues reconciliation of these payments in batches. The job id is derived from
 * the reason (e.g. chain and indexed block) and the ids, so the same prompt given
 * twice is one job; a later block gives a new job.
 */
export async function enqueueReconcile(queue: Queue, paymentIds: readonly string[], reason: string): Promise<void> {
  const ids = [...new Set(paymentIds)].sort();
  const jobs = [];
  for (let i = 0; i < ids.length; i += BATCH) {
    const batch = ids.slice(i, i + BATCH);
    const digest = createHash("sha256").update(batch.join(",")).digest("hex").slice(0, 16);
    jobs.push({ name: "reconcile", data: { paymentIds: batch } satisfies ReconcileJobData, opts: { jobId: `reconcile-${reason}-${digest}`.replaceAll(":", "-") } });
  }
  if (jobs.length > 0) await queue.addBulk(jobs);
}

/** A delayed reconcile at the payment's expiry, so `expired` appears on time. */
export async function scheduleExpiry(queue: Queue, paymentId: string, expiresAt: Date): Promise<void> {
  await queue.add("expire", { paymentIds: [paymentId] } satisfies ReconcileJobData, {
    jobId: `expire-${paymentId}`,
    delay: Math.max(0, expiresAt.getTime() - Date.now() + 1_000),
  });
}

/** Minute-bucketed ids: prompts within a minute coalesce, a later prompt can try again. */
const bucket = () => Math.floor(Date.now() / 60_000);

/** Prompts the sweep of these payments (the job itself decides whether anything is owed). */
export async function enqueueSweeps(queue: Queue, paymentIds: readonly string[]): Promise<void> {
  if (paymentIds.length === 0) return;
  await queue.addBulk(
    [...new Set(paymentIds)].map((paymentId) => ({ name: "sweep", data: { paymentId }, opts: { jobId: `sweep-${paymentId}-${bucket()}` } })),
  );
}

/** Prompts a refund row to be sent. */
export async function enqueueRefund(queue: Queue, transferId: string): Promise<void> {
  await queue.add("refund", { transferId }, { jobId: `refund-${transferId}-${bucket()}` });
}

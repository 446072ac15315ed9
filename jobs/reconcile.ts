import type { Job, Queue } from "bullmq";
import type { Config } from "../config/index.ts";
import type { Db } from "../db/client.ts";
import { enqueueSweeps } from "./enqueue.ts";
import type { ReconcileJobData } from "./queues.ts";
import { reconcilePayments } from "../reconcile/reconcilePayments.ts";

/**
 * `reconcile` and `expire`: recompute the listed payments, then (after commit) prompt
 * the sweep of those that just completed through their deposit address. Harmless
 * when run twice.
 */
export const reconcile = (db: Db, config: Config, transfersQueue: Queue) => async (job: Job<ReconcileJobData>) => {
  const results = await reconcilePayments(db, config, job.data.paymentIds);
  let changed = 0;
  const toSweep: string[] = [];
  for (const [id, r] of results) {
    if (r.changed) changed++;
    if (r.after.status === "completed" && r.before.status !== "completed") toSweep.push(id);
  }
  await enqueueSweeps(transfersQueue, toSweep);
  return { reconciled: results.size, changed };
};

import type { Job, Queue } from "bullmq";
import type { Config } from "../config/index.ts";
import type { Db } from "../db/client.ts";
import { paymentsToRecheck, paymentsToSweep } from "../db/dispatchQueries.ts";
import { unfinishedTransfersOut } from "../db/transfersOut.ts";
import { enqueueReconcile, enqueueRefund, enqueueSweeps } from "./enqueue.ts";

/**
 * The periodic safety net behind dispatch and the delayed `expire` jobs: re-reconciles
 * every open payment, pending ones past expiry (a lost delayed job), and completed
 * ones inside their finality window (a reorg deeper than the confirmations seen); and
 * re-prompts sweeps and refunds whose job vanished (Redis flushed, worker killed).
 */
export const recheck = (db: Db, config: Config, reconcileQueue: Queue, transfersQueue: Queue) => async (job: Job) => {
  const finality = config.networks.map((n) => ({ chainId: n.chainId, blocks: n.requiredConfirmations }));
  const ids = await paymentsToRecheck(db, finality);
  await enqueueReconcile(reconcileQueue, ids, `recheck-${job.id ?? Date.now()}`);
  // Sweeps owed but not done, and sweeps/refunds a crash left half way: drive them on.
  const unfinished = await unfinishedTransfersOut(db);
  const sweeps = [...(await paymentsToSweep(db)), ...unfinished.filter((t) => t.kind === "sweep").map((t) => t.paymentId)];
  await enqueueSweeps(transfersQueue, sweeps);
  for (const t of unfinished.filter((t) => t.kind === "refund")) await enqueueRefund(transfersQueue, t.id);
  return { reconcile: ids.length, sweeps: sweeps.length };
};

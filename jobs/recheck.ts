import type { Job } from "bullmq";
import type { Config } from "../config/index.ts";
import type { Db } from "../db/client.ts";
import { unfinishedBridgeRequests } from "../db/bridgeRequests.ts";
import { paymentsToRecheck } from "../db/paymentsToRevisit.ts";
import { paymentsToSweep, unfinishedTransfersOut } from "../db/transfersOut.ts";
import type { Prompts } from "../domain/prompts.ts";
import type { JobPayloads } from "./queues.ts";

/**
 * `recheck`, the periodic safety net behind dispatch and the delayed `expire` jobs:
 * re-reconciles every open payment, pending ones past expiry (a lost delayed job), and
 * completed ones inside their finality window (a reorg deeper than the confirmations
 * seen); re-prompts sweeps and refunds whose job vanished (Redis flushed, worker killed);
 * and re-reads every unfinished bridge request (a `bridge` job's chain of reads lost).
 */
export const recheck = (db: Db, config: Config, prompts: Prompts) => async (job: Job<JobPayloads["recheck"]>) => {
  const finality = config.networks.map((n) => ({ chainId: n.chainId, blocks: n.requiredConfirmations }));
  const ids = await paymentsToRecheck(db, finality);
  await prompts.reconcile(ids, `recheck-${job.id ?? Date.now()}`);
  // Sweeps owed but not done, and sweeps/refunds a crash left half way: drive them on.
  const unfinished = await unfinishedTransfersOut(db);
  const sweeps = [...(await paymentsToSweep(db)), ...unfinished.filter((t) => t.kind === "sweep").map((t) => t.paymentId)];
  await prompts.sweep(sweeps);
  for (const t of unfinished.filter((t) => t.kind === "refund")) await prompts.refund(t.id);
  const bridges = await unfinishedBridgeRequests(db);
  await prompts.bridge(bridges);
  return { reconcile: ids.length, sweeps: sweeps.length, bridges: bridges.length };
};

import type { Job } from "bullmq";
import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import type { PaymentRow } from "../db/schema/index.ts";
import { ServiceUnavailableError } from "../domain/errors.ts";
import type { Prompts } from "../domain/prompts.ts";
import { reconcileDuration } from "../metrics/settlementMetrics.ts";
import { reconcilePayments } from "../reconcile/index.ts";
import { isFinal } from "../domain/paymentStatus.ts";
import { portsOf } from "../rails/index.ts";
import type { JobPayloads } from "./queues.ts";

/**
 * `reconcile` and `expire`: recompute the listed payments, then (after commit) prompt the
 * sweep of those that just completed, or just ended otherwise where native coin at their
 * deposit address can be forwarded (`sweepNativeCoin`); fails (retried) while any was held
 * for its indexer re-reading. Harmless when run twice.
 */
export const reconcile = (db: Db, config: Config, prompts: Prompts, logger: Logger) => async (job: Job<JobPayloads["reconcile"]>) => {
  const done = reconcileDuration.startTimer({ job: job.name });
  let results: Awaited<ReturnType<typeof reconcilePayments>>;
  try {
    results = await reconcilePayments(db, config, job.data.paymentIds);
  } catch (error) {
    done({ outcome: "error" });
    throw error;
  }
  done({ outcome: "ok" });
  let changed = 0;
  const toSweep: string[] = [];
  for (const [id, r] of results) {
    if (r.changed) changed++;
    if (r.after.status === "completed" && r.before.status !== "completed") toSweep.push(id);
    // Ended otherwise (expired, failed, cancelled): native coin sent to its deposit address is forwarded then.
    else if (isFinal(r.after.status) && !isFinal(r.before.status) && movesNativeCoin(config, r.before)) toSweep.push(id);
    if (r.before.status === "completed" && r.after.status !== "completed") {
      // A reorg deeper than the confirmations the network requires took the evidence of a completed payment away.
      logger.error({ paymentId: id, chainId: r.before.chainId, now: r.after.status, completingTxHash: r.before.completingTxHash }, "a completed payment lost its evidence in a reorg: reverted after completion");
    }
  }
  await prompts.sweep(toSweep);
  // Held while their indexer re-reads: tried again (backing off) until it is done. Dispatch's
  // cursor has moved past their evidence, and nothing else would look at a payment showing no
  // money before its expiry: a customer who paid would wait for it.
  const held = [...results.values()].filter((r) => r.held).length;
  if (held > 0) throw new ServiceUnavailableError(`the indexer is reading again blocks it had read: ${held} payment(s) held; trying again`);
  return { reconciled: results.size, changed };
};

/** Whether the payment's rail forwards native coin from its deposit addresses (false on a network no longer enabled). */
function movesNativeCoin(config: Config, payment: PaymentRow): boolean {
  try {
    return portsOf(config, payment).chain.nativeBalance !== undefined;
  } catch {
    return false;
  }
}

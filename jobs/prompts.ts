import { createHash } from "node:crypto";
import type { Config } from "../config/index.ts";
import type { Prompts } from "../domain/prompts.ts";
import { openQueue, QUEUES, type JobPayloads } from "./queues.ts";

/** Payments per reconcile job. */
const BATCH = 250;

/** Minute-bucketed ids: prompts within a minute coalesce, a later prompt can try again. */
const bucket = () => Math.floor(Date.now() / 60_000);

/** The prompts port on BullMQ queues; job ids make a repeated prompt one job. */
export function createPrompts(config: Config): Prompts {
  const reconcileQueue = openQueue(config, QUEUES.reconcile);
  const transfersQueue = openQueue(config, QUEUES.transfers);
  const bridgeQueue = openQueue(config, QUEUES.bridge);
  return {
    async reconcile(paymentIds, reason) {
      const ids = [...new Set(paymentIds)].sort();
      const jobs = [];
      for (let i = 0; i < ids.length; i += BATCH) {
        const batch = ids.slice(i, i + BATCH);
        const digest = createHash("sha256").update(batch.join(",")).digest("hex").slice(0, 16);
        const data: JobPayloads["reconcile"] = { paymentIds: batch };
        jobs.push({ name: "reconcile", data, opts: { jobId: `reconcile-${reason}-${digest}`.replaceAll(":", "-") } });
      }
      if (jobs.length > 0) await reconcileQueue.addBulk(jobs);
    },
    async expire(paymentId, at) {
      const data: JobPayloads["expire"] = { paymentIds: [paymentId] };
      await reconcileQueue.add("expire", data, { jobId: `expire-${paymentId}`, delay: Math.max(0, at.getTime() - Date.now() + 1_000) });
    },
    async sweep(paymentIds) {
      if (paymentIds.length === 0) return;
      await transfersQueue.addBulk(
        [...new Set(paymentIds)].map((paymentId) => ({
          name: "sweep",
          data: { paymentId } satisfies JobPayloads["sweep"],
          opts: { jobId: `sweep-${paymentId}-${bucket()}` },
        })),
      );
    },
    async refund(transferId) {
      await transfersQueue.add("refund", { transferId } satisfies JobPayloads["refund"], { jobId: `refund-${transferId}-${bucket()}` });
    },
    async bridge(paymentIds, options = {}) {
      if (paymentIds.length === 0) return;
      const delay = Math.max(0, options.delayMs ?? 0);
      // Ids bucketed by the delay: prompts due in the same bucket coalesce, and a job that
      // prompts its own next read (delay = its bucket width) always lands in a later bucket,
      // so the chain of reads never collides with the running job's id.
      const width = delay > 0 ? delay : 1_000;
      const slot = Math.floor((Date.now() + delay) / width);
      await bridgeQueue.addBulk(
        [...new Set(paymentIds)].map((paymentId) => ({
          name: "bridge",
          data: { paymentId } satisfies JobPayloads["bridge"],
          opts: { jobId: `bridge-${paymentId}-${width}-${slot}`, delay },
        })),
      );
    },
    async close() {
      await Promise.all([reconcileQueue.close(), transfersQueue.close(), bridgeQueue.close()]);
    },
  };
}

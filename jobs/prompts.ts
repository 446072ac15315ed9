import { createHash } from "node:crypto";
import type { Config } from "../config/index.ts";
import { QueueUnavailableError } from "../domain/errors.ts";
import type { Prompts } from "../domain/prompts.ts";
import { openQueue, QUEUES, type JobPayloads } from "./queues.ts";

/** Payments per reconcile job. */
const BATCH = 250;

/**
 * The prompts port on BullMQ queues; job ids make a repeated prompt one job.
 * `failFast` (the API): a prompt Redis does not take within `QUEUE_TIMEOUT_MS` fails with
 * QueueUnavailableError instead of holding the request (Postgres already has the truth;
 * the recheck gives a lost prompt again).
 */
export function createPrompts(config: Config, options: { failFast?: boolean } = {}): Prompts {
  const reconcileQueue = openQueue(config, QUEUES.reconcile, options);
  const transfersQueue = openQueue(config, QUEUES.transfers, options);
  const bridgeQueue = openQueue(config, QUEUES.bridge, options);
  const keptMarker = `${config.redis.prefix}:prompts-kept`;
  const prompts: Prompts = {
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
    async expire(paymentIds, at) {
      const ids = [...new Set(paymentIds)].sort();
      if (ids.length === 0) return;
      const digest = createHash("sha256").update(ids.join(",")).digest("hex").slice(0, 16);
      const data: JobPayloads["expire"] = { paymentIds: ids };
      await reconcileQueue.add("expire", data, { jobId: `expire-${digest}`, delay: Math.max(0, at.getTime() - Date.now() + 1_000) });
    },
    // One job a payment (a transfer) at a time: a prompt while its job waits or retries joins it;
    // one while it runs is kept as one more run after it. A minute-bucketed id made each minute's
    // prompt another job beside one still retrying (a stuck transaction, a disabled network):
    // hundreds of copies of one sweep filled the transfer workers' slots.
    async sweep(paymentIds) {
      if (paymentIds.length === 0) return;
      await transfersQueue.addBulk(
        [...new Set(paymentIds)].map((paymentId) => ({
          name: "sweep",
          data: { paymentId } satisfies JobPayloads["sweep"],
          opts: { deduplication: { id: `sweep-${paymentId}`, keepLastIfActive: true } },
        })),
      );
    },
    async refund(transferId) {
      await transfersQueue.add("refund", { transferId } satisfies JobPayloads["refund"], { deduplication: { id: `refund-${transferId}`, keepLastIfActive: true } });
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
    // A key beside the queues: Redis restarted empty or flushed takes it with the jobs.
    async mayHaveLost() {
      return (await (await reconcileQueue.backend.connection.client).get(keptMarker)) === null;
    },
    async markKept() {
      await (await reconcileQueue.backend.connection.client).set(keptMarker, new Date().toISOString());
    },
    async close() {
      await Promise.all([reconcileQueue.close(), transfersQueue.close(), bridgeQueue.close()]);
    },
  };
  return options.failFast ? bounded(prompts, config.redis.timeoutMs) : prompts;
}

/** Every prompt settles within `ms`: a timeout or a Redis error becomes QueueUnavailableError. */
function bounded(prompts: Prompts, ms: number): Prompts {
  const within = async <T>(work: Promise<T>): Promise<T> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new QueueUnavailableError(new Error(`no answer from Redis within ${ms} ms`))), ms);
    });
    try {
      return await Promise.race([work, timeout]);
    } catch (error) {
      throw error instanceof QueueUnavailableError ? error : new QueueUnavailableError(error);
    } finally {
      clearTimeout(timer);
    }
  };
  return {
    reconcile: (ids, reason) => within(prompts.reconcile(ids, reason)),
    expire: (ids, at) => within(prompts.expire(ids, at)),
    sweep: (ids) => within(prompts.sweep(ids)),
    refund: (id) => within(prompts.refund(id)),
    bridge: (ids, opts) => within(prompts.bridge(ids, opts)),
    mayHaveLost: () => within(prompts.mayHaveLost()),
    markKept: () => within(prompts.markKept()),
    close: () => prompts.close(),
  };
}

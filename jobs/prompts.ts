import { createHash } from "node:crypto";
import type { Config } from "../config/index.ts";
import { QueueUnavailableError } from "../domain/errors.ts";
import type { Prompts } from "../domain/prompts.ts";
import { openQueue, QUEUES, type JobPayloads } from "./queues.ts";

/** Payments per reconcile job. */
const BATCH = 250;

/**
 * Tries of one bridge read before its job gives up: a few, for a blip. The recheck prompts a
 * fresh read of every unfinished request each time it runs, so a request Relay keeps failing
 * on is still read every recheck — where the default four hours of retries gave each of those
 * prompts a retry chain of its own, hundreds at once for one request.
 */
const BRIDGE_READ_ATTEMPTS = 4;

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
  const maintenanceQueue = openQueue(config, QUEUES.maintenance, options);
  const x402Queue = openQueue(config, QUEUES.x402, options);
  const keptMarker = `${config.redis.prefix}:prompts-kept`;
  /** Dispatch's note, per chain, of the evidence it has prompted for (a hash beside the queues). */
  const promptedKey = `${config.redis.prefix}:prompted-through`;
  const defined = new WeakSet<object>();
  /** Raises a chain's note (never lowers it: dispatchers may race). */
  const notePrompted = async (chainId: string, block: bigint) => {
    const client = await reconcileQueue.backend.connection.client;
    if (!defined.has(client)) {
      client.defineCommand("stablepayNotePrompted", {
        numberOfKeys: 1,
        lua: "local v = redis.call('HGET', KEYS[1], ARGV[1]); if (not v) or tonumber(ARGV[2]) > tonumber(v) then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end; return 1",
      });
      defined.add(client);
    }
    await client.runCommand("stablepayNotePrompted", [promptedKey, chainId, block.toString()]);
  };
  const prompts: Prompts = {
    async reconcile(paymentIds, reason, through) {
      const ids = [...new Set(paymentIds)].sort();
      const jobs = [];
      for (let i = 0; i < ids.length; i += BATCH) {
        const batch = ids.slice(i, i + BATCH);
        const digest = createHash("sha256").update(batch.join(",")).digest("hex").slice(0, 16);
        const data: JobPayloads["reconcile"] = { paymentIds: batch };
        jobs.push({ name: "reconcile", data, opts: { jobId: `reconcile-${reason}-${digest}`.replaceAll(":", "-") } });
      }
      if (jobs.length > 0) await reconcileQueue.addBulk(jobs);
      if (through) await notePrompted(through.chainId, through.block);
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
    // One waiting run at a time: every create that finds the pool empty prompts it.
    async replenish() {
      await maintenanceQueue.add("replenish", {} satisfies JobPayloads["replenish"], { deduplication: { id: "replenish", keepLastIfActive: true } });
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
          opts: { jobId: `bridge-${paymentId}-${width}-${slot}`, delay, attempts: BRIDGE_READ_ATTEMPTS },
        })),
      );
    },
    // One job per settlement: a settle asked twice (a client's retry) waits on the same job.
    async x402Settle(settlementId) {
      await x402Queue.add("x402-settle", { settlementId } satisfies JobPayloads["x402-settle"], { jobId: `x402-settle-${settlementId}` });
    },
    // A key beside the queues: Redis restarted empty or flushed takes it with the jobs.
    async mayHaveLost(cursors) {
      const client = await reconcileQueue.backend.connection.client;
      if ((await client.get(keptMarker)) === null) return true;
      const chains = [...cursors.keys()];
      if (chains.length === 0) return false;
      const noted = await client.hmget(promptedKey, ...chains);
      // Behind Postgres' cursor (or never noted): the store went back in time and took prompts with it.
      return chains.some((chainId, i) => noted[i] === null || BigInt(noted[i]!) < cursors.get(chainId)!);
    },
    async markKept(cursors) {
      for (const [chainId, block] of cursors) await notePrompted(chainId, block);
      await (await reconcileQueue.backend.connection.client).set(keptMarker, new Date().toISOString());
    },
    async close() {
      await Promise.all([reconcileQueue.close(), transfersQueue.close(), bridgeQueue.close(), maintenanceQueue.close(), x402Queue.close()]);
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
    reconcile: (ids, reason, through) => within(prompts.reconcile(ids, reason, through)),
    expire: (ids, at) => within(prompts.expire(ids, at)),
    sweep: (ids) => within(prompts.sweep(ids)),
    refund: (id) => within(prompts.refund(id)),
    replenish: () => within(prompts.replenish()),
    bridge: (ids, opts) => within(prompts.bridge(ids, opts)),
    x402Settle: (id) => within(prompts.x402Settle(id)),
    mayHaveLost: (cursors) => within(prompts.mayHaveLost(cursors)),
    markKept: (cursors) => within(prompts.markKept(cursors)),
    close: () => prompts.close(),
  };
}

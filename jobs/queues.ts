import { Queue, type ConnectionOptions, type JobsOptions } from "bullmq";
import type { Config } from "../config/index.ts";

/** Every queue the service uses. */
export const QUEUES = {
  /** Recompute payments from evidence: `reconcile`, and `expire` at a payment's expiry. */
  reconcile: "reconcile",
  /** Operator transactions out of deposit addresses: `sweep` (to the merchant) and `refund`. */
  transfers: "transfers",
  /** Periodic safety nets and housekeeping: `recheck`, `idempotency-cleanup`, `replenish`. */
  maintenance: "maintenance",
  /** One `deliver` job per webhook delivery row (job id `webhook-<deliveryId>`). */
  webhook: "webhook",
  /** `bridge`: read a cross-chain payment's bridge request again and record what changed. */
  bridge: "bridge",
  /** `x402-settle`: submit an x402 authorization with the operator's key and record its Transfer. */
  x402: "x402",
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Every job's payload, by job name. A job only points at rows; the rows are the truth. */
export type JobPayloads = {
  reconcile: { paymentIds: string[] };
  expire: { paymentIds: string[] };
  sweep: { paymentId: string };
  refund: { transferId: string };
  bridge: { paymentId: string };
  "x402-settle": { settlementId: string };
  /** `waits`: times the delivery waited for its URL's attempts in flight. */
  deliver: { deliveryId: string; waits?: number };
  recheck: Record<string, never>;
  replenish: Record<string, never>;
  "idempotency-cleanup": { olderThanHours?: number };
};

export type JobName = keyof JobPayloads;

/** The longest wait between two tries of a job (`cappedBackoff`). */
export const RETRY_CAP_MS = 60_000;

/**
 * Retries double from half a second up to a minute: a job holds the only prompt for its
 * work (dispatch moves its cursor past the evidence once the job is queued), so it must
 * outlast a database outage or failover of hours, not give up after a minute of them.
 */
export const cappedBackoff = (attemptsMade: number): number => Math.min(500 * 2 ** Math.max(attemptsMade - 1, 0), RETRY_CAP_MS);

/** Completed jobs are removed so a deterministic job id can be used again later. About four hours of tries (`cappedBackoff`). */
export const defaultJobOptions = {
  removeOnComplete: true,
  removeOnFail: 1_000,
  attempts: 250,
  backoff: { type: "capped" },
} as const;

/**
 * A delivery's job: its id is the delivery's, so enqueueing twice is one job; BullMQ
 * retries it on the configured schedule (the webhook worker's backoff strategy).
 * Finished jobs are removed: the row, not Redis, remembers the outcome.
 */
export const webhookJobOptions = (config: Config, deliveryId: string): JobsOptions => ({
  jobId: `webhook-${deliveryId}`,
  attempts: config.webhooks.retryDelaysMs.length + 1,
  backoff: { type: "webhook" },
  removeOnComplete: true,
  removeOnFail: true,
});

/**
 * BullMQ wants connection options (it opens and closes its own clients); a shared
 * client would keep processes from exiting. `maxRetriesPerRequest: null` is
 * required for workers' blocking commands.
 */
export function redisConnection(url: string): ConnectionOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    tls: u.protocol === "rediss:" ? {} : undefined,
    maxRetriesPerRequest: null,
  };
}

/**
 * A connection for producers that must not wait for Redis (the API): with Redis down a
 * command fails at once instead of queueing in ioredis until it returns (BullMQ's advice
 * for Queue instances), and a command in flight when it drops is not retried forever.
 */
export const failFastConnection = (url: string): ConnectionOptions => ({ ...redisConnection(url), enableOfflineQueue: false, maxRetriesPerRequest: 1 });

/** A producer handle for a queue (`failFast`: the API's, see above); close it on shutdown. */
export function openQueue(config: Config, name: QueueName, options: { failFast?: boolean } = {}) {
  const queue = new Queue(name, {
    connection: options.failFast ? failFastConnection(config.redis.url) : redisConnection(config.redis.url),
    prefix: config.redis.prefix,
    defaultJobOptions,
  });
  // While Redis is down the connection reports every reconnect attempt; what matters
  // surfaces where a command fails (a 503, a failed job, /api/health), not as an unhandled event.
  queue.on("error", () => {});
  return queue;
}

/** A producer handle on every queue (the queue dashboard, queue metrics); close them on shutdown. */
export const openAllQueues = (config: Config, options: { failFast?: boolean } = {}) => Object.values(QUEUES).map((name) => openQueue(config, name, options));

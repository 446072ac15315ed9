import { Queue } from "bullmq";
import type { Config } from "../config/index.ts";
import { redisConnection } from "./connection.ts";

/** Every queue the service uses. */
export const QUEUES = {
  /** Recompute payments from indexed evidence (`reconcile`, and `expire` at a payment's expiry). */
  reconcile: "reconcile",
  /** Operator transactions out of deposit addresses: `sweep` (to the merchant) and `refund`. */
  transfers: "transfers",
  /** Periodic safety nets and housekeeping. */
  maintenance: "maintenance",
  /** One `deliver` job per webhook delivery row (job id `webhook-<deliveryId>`). */
  webhook: "webhook",
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/** Payloads, by job name. */
export type ReconcileJobData = { paymentIds: string[] };
export type MaintenanceJobData = { olderThanHours?: number };

/** Completed jobs are removed so a deterministic job id can be used again later. */
export const defaultJobOptions = {
  removeOnComplete: true,
  removeOnFail: 1_000,
  attempts: 8,
  backoff: { type: "exponential", delay: 500 },
} as const;

/** A producer handle for a queue; close it on shutdown. */
export const openQueue = (config: Config, name: QueueName) =>
  new Queue(name, { connection: redisConnection(config.redis.url), prefix: config.redis.prefix, defaultJobOptions });

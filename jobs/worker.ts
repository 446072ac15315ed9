import { UnrecoverableError, Worker, type Job } from "bullmq";
import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import { AppError } from "../domain/errors.ts";
import { bridge } from "./bridge.ts";
import { deliverWebhook, RetryDeliveryError } from "./deliverWebhook.ts";
import { startDispatcher } from "../reconcile/index.ts";
import { idempotencyCleanup } from "./idempotencyCleanup.ts";
import { withJobLogContext } from "./jobLogContext.ts";
import { createPrompts } from "./prompts.ts";
import { QUEUES, cappedBackoff, openQueue, redisConnection } from "./queues.ts";
import { recheck } from "./recheck.ts";
import { reconcile } from "./reconcile.ts";
import { refund } from "./refund.ts";
import { replenish } from "./replenish.ts";
import { sweep } from "./sweep.ts";
import { startWebhookRelay } from "./webhookRelay.ts";
import { stockedMethods } from "../rails/index.ts";
import { watchWorkerMetrics } from "./workerMetrics.ts";
import { x402Settle } from "./x402Settle.ts";

type Processor = (job: Job) => Promise<unknown>;

/** A delivery job that failed on our side (not the receiver's answer) runs again this soon. */
const INFRASTRUCTURE_RETRY_MS = 2_000;

/** How often the recheck (the safety net behind every lost prompt) runs. */
const RECHECK_EVERY_MS = 30_000;
/** The periodic jobs the maintenance queue must always have. */
const SCHEDULES = ["idempotency-cleanup", "recheck"] as const;
/** How often what creation draws on (Solana's deposit addresses) is looked at, besides the prompts of creates that found none. */
const REPLENISH_EVERY_MS = 10_000;

/** How long a sweep or refund job's lock outlives its worker (renewed every half of it while the job runs). */
const TRANSFER_LOCK_MS = 10_000;

/** Routes a job to its processor by name; errors that retrying cannot fix fail at once. Its log lines carry its payment id(s). */
function dispatchByName(processors: Record<string, Processor>, logger: Logger): Processor {
  return withJobLogContext(async (job) => {
    const processor = processors[job.name];
    if (!processor) throw new UnrecoverableError(`no processor for job ${job.name}`);
    try {
      return await processor(job);
    } catch (error) {
      if (error instanceof AppError && !error.retryable) throw new UnrecoverableError(error.message);
      logger.warn({ err: error, job: job.name, id: job.id }, "job failed; will retry");
      throw error;
    }
  });
}

/**
 * Starts every worker, the periodic schedules and (unless disabled) the dispatcher,
 * and returns a `close` that lets in-flight jobs finish (graceful shutdown).
 */
export async function startWorkers(deps: {
  config: Config;
  db: Db;
  logger: Logger;
  databaseUrl?: string;
  dispatch?: boolean;
  transfers?: boolean;
  webhooks?: boolean;
  /** How often the schedules are looked for (a flushed Redis loses them); tests shorten it. */
  scheduleWatchMs?: number;
}) {
  const { config, db, logger } = deps;
  const connection = redisConnection(config.redis.url);
  // Every queue's jobs but the webhooks' retry on `cappedBackoff` (their `backoff: { type: "capped" }`).
  // A job whose worker died under it (stalled) goes back to the queue: every job here is safe to
  // run again. BullMQ's default gives up after the first such return, and a reconcile prompt so
  // failed is lost (dispatch's cursor has moved on: the payment waits for its expiry's recheck);
  // 20 returns keep a job through a worker restarted again and again, yet end one that kills it.
  const options = { connection, prefix: config.redis.prefix, settings: { backoffStrategy: cappedBackoff }, maxStalledCount: 20 };

  const prompts = createPrompts(config);
  // Scheduled only where a payment method that stocks addresses serves a network.
  const schedules: readonly string[] = [...SCHEDULES, ...(stockedMethods(config).some((s) => s.networks.length > 0) ? ["replenish"] : [])];
  const maintenanceQueue = openQueue(config, QUEUES.maintenance);
  const webhookQueue = openQueue(config, QUEUES.webhook);
  // Job schedulers are upserts: every worker replica can declare them safely. They live
  // in Redis, so they are declared again whenever the connection comes back: a Redis
  // restarted empty would otherwise never run the recheck (the safety net) again.
  const declareSchedules = async () => {
    await maintenanceQueue.upsertJobScheduler("idempotency-cleanup", { every: 60 * 60 * 1000 }, { name: "idempotency-cleanup", data: { olderThanHours: 24 } });
    await maintenanceQueue.upsertJobScheduler("recheck", { every: RECHECK_EVERY_MS }, { name: "recheck", data: {} });
    if (schedules.includes("replenish")) await maintenanceQueue.upsertJobScheduler("replenish", { every: REPLENISH_EVERY_MS }, { name: "replenish", data: {} });
  };
  await declareSchedules();
  // Stocked at start, not a period later: a fresh deployment's first creates find addresses.
  if (schedules.includes("replenish")) await prompts.replenish().catch((error: unknown) => logger.warn({ err: error }, "could not prompt replenishing"));
  (await maintenanceQueue.backend.connection.client).on("ready", () => {
    declareSchedules().catch((error: unknown) => logger.warn({ err: error }, "could not declare the job schedules again"));
  });
  // A flush (FLUSHALL from a console) empties Redis without a reconnect, so `ready` never fires:
  // the schedules are looked for every minute and declared again only when one is missing (an
  // upsert of a present one could push its next run back).
  const scheduleWatch = setInterval(() => {
    maintenanceQueue
      .getJobSchedulers()
      .then(async (present) => {
        const keys = new Set(present.map((s) => s.key));
        if (schedules.every((name) => keys.has(name))) return;
        logger.warn({ present: [...keys] }, "job schedules missing (Redis flushed?); declaring them again");
        await declareSchedules();
      })
      .catch((error: unknown) => logger.warn({ err: error }, "could not check the job schedules"));
  }, deps.scheduleWatchMs ?? 60_000);

  const reconcileJob = reconcile(db, config, prompts, logger);
  const workers = [
    new Worker(QUEUES.reconcile, dispatchByName({ reconcile: reconcileJob, expire: reconcileJob }, logger), { ...options, concurrency: 8 }),
    new Worker(QUEUES.bridge, dispatchByName({ bridge: bridge({ config, db, logger, prompts }) }, logger), { ...options, concurrency: 8 }),
    new Worker(
      QUEUES.maintenance,
      dispatchByName(
        {
          "idempotency-cleanup": idempotencyCleanup(db),
          recheck: recheck({ config, db, logger, databaseUrl: deps.databaseUrl }, prompts),
          replenish: replenish({ config, db, logger, databaseUrl: deps.databaseUrl }),
        },
        logger,
      ),
      { ...options, concurrency: 1 },
    ),
  ];
  if (deps.transfers !== false && deps.databaseUrl && (config.operatorPrivateKey || config.solana.operatorSecretKey)) {
    // Operator transactions: signing is serialized per chain by an advisory lock; receipts are awaited in parallel.
    // A short lock and frequent stall checks: a job whose worker died goes back to another within
    // ~20 s instead of BullMQ's ~60 s default (a second run is harmless: the job checks its row and the chain).
    const transferDeps = { config, db, logger, databaseUrl: deps.databaseUrl };
    workers.push(
      new Worker(QUEUES.transfers, dispatchByName({ sweep: sweep(transferDeps), refund: refund(transferDeps) }, logger), {
        ...options,
        concurrency: 16,
        lockDuration: TRANSFER_LOCK_MS,
        stalledInterval: TRANSFER_LOCK_MS / 2,
      }),
    );
  }
  if (deps.transfers !== false && deps.databaseUrl && (config.operatorPrivateKey || config.solana.operatorSecretKey)) {
    // x402 settlements: the operator pays their gas (on EVM as the settlement contract's settler; on Solana as fee payer); sending on EVM shares the chain's signing lock with sweeps.
    const x402Deps = { config, db, logger, databaseUrl: deps.databaseUrl };
    workers.push(new Worker(QUEUES.x402, dispatchByName({ "x402-settle": x402Settle(x402Deps) }, logger), { ...options, concurrency: 32 }));
  }
  if (deps.webhooks !== false) {
    workers.push(
      new Worker(QUEUES.webhook, withJobLogContext(deliverWebhook({ config, db, logger })), {
        ...options,
        concurrency: config.webhooks.concurrency,
        // The delivery row decides when to retry (RetryDeliveryError carries it). Any other failure
        // is ours, not the receiver's (the database unreachable): retried soon, since a job parked
        // on the schedule's long steps would also hold off the re-drive (same job id) for that long.
        settings: {
          backoffStrategy: (_attemptsMade, _type, error) => (error instanceof RetryDeliveryError ? error.retryInMs : INFRASTRUCTURE_RETRY_MS),
        },
      }),
    );
  }
  for (const worker of workers) {
    worker.on("error", (error) => logger.error({ err: error, queue: worker.name }, "worker error"));
  }
  const dispatcher =
    deps.dispatch !== false && deps.databaseUrl ? startDispatcher({ config, db, logger, prompts, databaseUrl: deps.databaseUrl }) : null;
  const stopMetrics = watchWorkerMetrics(config, db);
  const webhookRelay = deps.webhooks !== false ? startWebhookRelay({ config, db, logger, queue: webhookQueue, databaseUrl: deps.databaseUrl }) : null;
  logger.info({ queues: workers.map((w) => w.name), dispatch: dispatcher !== null }, "workers started");

  return {
    workers,
    prompts,
    dispatcher,
    webhookQueue,
    webhookRelay,
    close: async () => {
      clearInterval(scheduleWatch);
      await dispatcher?.stop();
      await webhookRelay?.stop();
      await Promise.all(workers.map((w) => w.close()));
      await stopMetrics();
      await Promise.all([prompts.close(), maintenanceQueue.close(), webhookQueue.close()]);
    },
  };
}

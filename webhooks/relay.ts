import type { JobsOptions, Queue } from "bullmq";
import pg from "pg";
import { coalescing } from "../jobs/coalesce.ts";
import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import { assignFeedPositions, WEBHOOK_CHANNEL } from "../db/paymentEvents.ts";
import { dueDeliveries } from "../db/webhookDeliveries.ts";
import type { WebhookJobData } from "../jobs/deliverWebhook.ts";

const BATCH = 1_000;

/**
 * A delivery's job: its id is the delivery's, so enqueueing twice is one job; BullMQ
 * retries it on the configured schedule (see the webhook worker's backoff strategy).
 * Finished jobs are removed: the row, not Redis, remembers the outcome.
 */
export const webhookJobOptions = (config: Config, deliveryId: string): JobsOptions => ({
  jobId: `webhook-${deliveryId}`,
  attempts: config.webhooks.retryDelaysMs.length + 1,
  backoff: { type: "webhook" },
  removeOnComplete: true,
  removeOnFail: true,
});

/** Enqueues every delivery that is due and not being attempted; returns how many. */
export async function enqueueDueDeliveries(db: Db, config: Config, queue: Queue): Promise<number> {
  let total = 0;
  for (;;) {
    const due = await dueDeliveries(db, BATCH);
    if (due.length > 0) {
      await queue.addBulk(due.map((d) => ({ name: "deliver", data: { deliveryId: d.id } satisfies WebhookJobData, opts: webhookJobOptions(config, d.id) })));
    }
    total += due.length;
    if (due.length < BATCH) return total;
  }
}

/**
 * The outbox relay: gives committed events their feed position and turns due
 * delivery rows into `webhook` jobs. Woken at once by the NOTIFY that an event's
 * transaction sends on commit, and every `redriveIntervalMs` as the re-drive: a row
 * whose job vanished (Redis flushed, worker killed mid-attempt) is enqueued again
 * once due. Runs in every worker; duplicates collapse on the job id.
 */
export function startWebhookRelay(deps: { config: Config; db: Db; logger: Logger; queue: Queue; databaseUrl?: string }) {
  const { config, db, logger, queue } = deps;
  let listener: pg.Client | null = null;

  async function relayOnce(): Promise<void> {
    await assignFeedPositions(db);
    await enqueueDueDeliveries(db, config, queue);
  }

  const loop = coalescing(relayOnce, (error) => logger.warn({ err: error }, "webhook relay failed; will retry"));
  const wake = loop.wake;

  async function connectListener(): Promise<void> {
    if (listener || loop.stopped() || !deps.databaseUrl) return;
    const client = new pg.Client({ connectionString: deps.databaseUrl });
    client.on("error", (error) => {
      logger.warn({ err: error }, "webhook relay listener lost; reconnecting");
      listener = null;
      client.end().catch(() => {});
    });
    await client.connect();
    client.on("notification", () => void wake());
    await client.query(`listen ${WEBHOOK_CHANNEL}`);
    if (loop.stopped()) {
      await client.end();
      return;
    }
    listener = client;
  }

  const timer = setInterval(() => {
    void connectListener()
      .catch((error) => logger.warn({ err: error }, "webhook relay could not listen; polling"))
      .finally(() => void wake());
  }, config.webhooks.redriveIntervalMs);
  const started = connectListener()
    .catch((error) => logger.warn({ err: error }, "webhook relay could not listen; polling"))
    .then(() => wake());

  return {
    /** Runs the relay now (tests, and callers that just wrote deliveries). */
    wake,
    ready: started,
    stop: async () => {
      clearInterval(timer);
      await started.catch(() => {});
      await loop.stop();
      await listener?.end().catch(() => {});
      listener = null;
    },
  };
}

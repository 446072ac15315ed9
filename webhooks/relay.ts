import type { Queue } from "bullmq";
import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import { startNotifyLoop } from "../db/notifyLoop.ts";
import { assignFeedPositions } from "../db/eventFeed.ts";
import { WEBHOOK_CHANNEL } from "../db/paymentEvents.ts";
import { dueDeliveries, type DueCursor } from "../db/webhookDeliveries.ts";
import { webhookJobOptions, type JobPayloads } from "../jobs/queues.ts";

const BATCH = 1_000;

/**
 * Enqueues every delivery that is due and not being attempted, once per run; returns how
 * many. Pages by (due time, id): enqueueing leaves the rows as they were, so re-reading
 * the first page (as this did) spun until the workers had attempted all but a page's
 * worth, re-adding the same jobs in every worker (bench:scale: 4 workers delivered 3×
 * slower than one).
 */
export async function enqueueDueDeliveries(db: Db, config: Config, queue: Queue, batch = BATCH): Promise<number> {
  let total = 0;
  let after: DueCursor | undefined;
  for (;;) {
    const due = await dueDeliveries(db, batch, after);
    if (due.length > 0) {
      await queue.addBulk(due.map((d) => ({ name: "deliver", data: { deliveryId: d.id } satisfies JobPayloads["deliver"], opts: webhookJobOptions(config, d.id) })));
    }
    total += due.length;
    if (due.length < batch) return total;
    after = due.at(-1)!;
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
  const { config, db, queue } = deps;
  return startNotifyLoop({
    name: "webhook relay",
    channel: WEBHOOK_CHANNEL,
    databaseUrl: deps.databaseUrl,
    intervalMs: config.webhooks.redriveIntervalMs,
    logger: deps.logger,
    run: async () => {
      await assignFeedPositions(db);
      await enqueueDueDeliveries(db, config, queue);
    },
  });
}

import type { Queue } from "bullmq";
import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import { startNotifyLoop } from "../db/notifyLoop.ts";
import { assignFeedPositions } from "../db/eventFeed.ts";
import { WEBHOOK_CHANNEL } from "../db/paymentEvents.ts";
import { claimDueDeliveries, releaseRelayed } from "../db/webhookDeliveries.ts";
import { webhookJobOptions, type JobPayloads } from "./queues.ts";

const BATCH = 1_000;
/** At most ~10 relay runs a second per worker under load; a lone event is relayed at once. */
const RELAY_SPACING_MS = 100;

/**
 * Enqueues every delivery that is due, not being attempted and not enqueued by a relay
 * within the re-drive interval; returns how many. Each page is claimed before its jobs
 * are added (`claimDueDeliveries`): relays in every worker used to re-add the whole due
 * backlog on each wake-up (bench:scale: 4 workers took twice the CPU of one per webhook,
 * and creates through 2 APIs fell to 40% of one).
 */
export async function enqueueDueDeliveries(db: Db, config: Config, queue: Queue, batch = BATCH): Promise<number> {
  let total = 0;
  for (;;) {
    const due = await claimDueDeliveries(db, batch, config.webhooks.redriveIntervalMs);
    if (due.length > 0) {
      try {
        await queue.addBulk(due.map((id) => ({ name: "deliver", data: { deliveryId: id } satisfies JobPayloads["deliver"], opts: webhookJobOptions(config, id) })));
      } catch (error) {
        // Not enqueued: claimable again by the next run rather than after the lease.
        await releaseRelayed(db, due).catch(() => {});
        throw error;
      }
    }
    total += due.length;
    if (due.length < batch) return total;
  }
}

/**
 * The outbox relay: gives committed events their feed position and turns due
 * delivery rows into `webhook` jobs. Woken at once by the NOTIFY that an event's
 * transaction sends on commit, and every `redriveIntervalMs` as the re-drive: a row
 * whose job vanished (Redis flushed, worker killed mid-attempt) is enqueued again
 * once due and its relay's claim has run out. Runs in every worker: each claims what it
 * enqueues, and duplicates collapse on the job id.
 */
export function startWebhookRelay(deps: { config: Config; db: Db; logger: Logger; queue: Queue; databaseUrl?: string }) {
  const { config, db, queue } = deps;
  return startNotifyLoop({
    name: "webhook relay",
    channel: WEBHOOK_CHANNEL,
    databaseUrl: deps.databaseUrl,
    intervalMs: config.webhooks.redriveIntervalMs,
    logger: deps.logger,
    // Every commit with events NOTIFYs: while creates stream in, each worker's relay would
    // otherwise run back to back (bench:scale: 4 workers cut creates/s by 70%).
    minSpacingMs: RELAY_SPACING_MS,
    run: async () => {
      // Positions serve the event feed, not delivery: a failure there never holds the webhooks back.
      await assignFeedPositions(db).catch((error: unknown) => deps.logger.warn({ err: error }, "could not give events their feed position; the next run does"));
      await enqueueDueDeliveries(db, config, queue);
    },
  });
}

import { randomUUID } from "node:crypto";
import type { Config } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { redeliverEvent as insertRedelivery, type PaymentEventRow } from "../../db/paymentEvents.ts";
import { lockRedeliveriesOf, recentRedeliveries } from "../../db/webhookDeliveries.ts";
import { RateLimitedError } from "../../domain/errors.ts";

const HOUR_SECONDS = 3_600;

/**
 * A merchant's redelivery of one of its events, at most `WEBHOOK_REDELIVERIES_PER_HOUR`
 * times an hour: counted from the redeliveries recorded in Postgres, one request at a time
 * per event across every API replica, so the bound is exact. Past it, RateLimitedError with
 * the seconds until the oldest counted redelivery leaves the hour. Returns the deliveries made.
 */
export async function redeliverOwnEvent(deps: { db: Db; config: Config }, event: PaymentEventRow, callbackUrl: string | null): Promise<number> {
  const limit = deps.config.webhooks.redeliveriesPerHour;
  return deps.db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    await lockRedeliveriesOf(tx, event.id);
    const recent = await recentRedeliveries(tx, event.id, HOUR_SECONDS);
    if (recent.count >= limit && recent.oldestAt) {
      const retryAfter = Math.max(1, Math.ceil((recent.oldestAt.getTime() + HOUR_SECONDS * 1000 - recent.now.getTime()) / 1000));
      throw new RateLimitedError(`Event ${event.id} was redelivered ${recent.count} times in the last hour, the most allowed (${limit}); try again in ${retryAfter} s.`, retryAfter);
    }
    return insertRedelivery(tx, event, callbackUrl, randomUUID());
  });
}

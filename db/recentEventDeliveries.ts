import { and, desc, eq, isNotNull } from "drizzle-orm";
import type { Mode } from "../domain/mode.ts";
import type { Db } from "./client.ts";
import { paymentEvents } from "./schema/index.ts";
import { deliveriesOfEvents } from "./webhookDeliveries.ts";

/**
 * The account's latest events in feed order (newest first, on the merchant/mode/feed index),
 * each with its webhook deliveries and their attempts: the dashboard's delivery log.
 */
export async function recentEventDeliveries(db: Db, account: { merchantId: string; mode: Mode }, limit: number) {
  const events = await db
    .select()
    .from(paymentEvents)
    .where(and(eq(paymentEvents.merchantId, account.merchantId), eq(paymentEvents.mode, account.mode), isNotNull(paymentEvents.feedPosition)))
    .orderBy(desc(paymentEvents.feedPosition))
    .limit(limit);
  const deliveries = await deliveriesOfEvents(
    db,
    events.map((e) => e.id),
  );
  return events.map((event) => ({ event, deliveries: deliveries.filter((d) => d.eventId === event.id) }));
}

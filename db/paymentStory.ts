import { asc, eq } from "drizzle-orm";
import type { Db } from "./client.ts";
import { refundRequestsOf } from "./refundRequests.ts";
import { paymentEvents } from "./schema/index.ts";
import { transfersOutOf } from "./transfersOut.ts";
import { deliveriesOfEvents } from "./webhookDeliveries.ts";

/**
 * Everything recorded about one payment, for the dashboard to tell its story: its events
 * (in the order they happened), money sent out (sweeps, refunds), refund requests, and each
 * event's webhook deliveries with their attempts.
 */
export async function paymentRecords(db: Db, paymentId: string) {
  const [events, transfers, requests] = await Promise.all([
    db.select().from(paymentEvents).where(eq(paymentEvents.paymentId, paymentId)).orderBy(asc(paymentEvents.sequence)),
    transfersOutOf(db, paymentId),
    refundRequestsOf(db, paymentId),
  ]);
  const deliveries = await deliveriesOfEvents(
    db,
    events.map((e) => e.id),
  );
  return { events, transfers, requests, deliveries };
}

export type PaymentRecords = Awaited<ReturnType<typeof paymentRecords>>;

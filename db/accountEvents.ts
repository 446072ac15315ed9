import { randomUUID } from "node:crypto";
import type { Mode } from "../domain/mode.ts";
import type { Db } from "./client.ts";
import { queueDeliveries, type PaymentEventRow } from "./paymentEvents.ts";
import { paymentEvents } from "./schema/index.ts";

export type NewAccountEvent = { merchantId: string; mode: Mode; type: "account.changed" | "test.ping"; data: Record<string, unknown> };

/**
 * Writes an event of the account (no payment: `paymentId` is null) and its deliveries, with
 * `tx`, the transaction that makes the change, as payment events are (the outbox): the event
 * exists exactly when the change does. It is positioned in the merchant's feed and sent by the
 * relay like any other. `endpointId` sends it to that endpoint only (a test event).
 */
export async function recordAccountEvent(tx: Db, event: NewAccountEvent, options: { endpointId?: string } = {}): Promise<{ event: PaymentEventRow; deliveries: number }> {
  const [row] = await tx
    .insert(paymentEvents)
    .values({ id: randomUUID(), merchantId: event.merchantId, mode: event.mode, paymentId: null, type: event.type, payload: event.data })
    .returning();
  const deliveries = await queueDeliveries(tx, row!, null, options);
  return { event: row!, deliveries };
}

import { eventPaymentView, type PaymentRecord } from "./paymentView.ts";

/**
 * An event's `data` as JSON text: `{payment, ...extra}`, the payment as `eventPaymentView`
 * shows it. Amounts in `extra` may be bigints: they are written as decimal strings of
 * smallest units. The outbox stores the text as it is given.
 */
export function eventDataJson(payment: PaymentRecord, extra?: Record<string, unknown>): string {
  // The payment's view holds no bigint (amounts are formatted), so only `extra` needs the replacer.
  return extra ? JSON.stringify({ payment: eventPaymentView(payment), ...extra }, bigintAsString) : JSON.stringify({ payment: eventPaymentView(payment) });
}

const bigintAsString = (_key: string, value: unknown) => (typeof value === "bigint" ? value.toString() : value);

/** A stored event, as far as its envelope shows it. */
export type EnvelopedEvent = { id: string; type: string; createdAt: Date; mode: string; paymentId: string | null; payload: unknown };

/**
 * An event as merchants receive it, in a webhook body and in the feed alike
 * (Standard Webhooks' `{type, timestamp, data}`, plus the id and the mode).
 */
export function eventEnvelope<E extends EnvelopedEvent>(e: E) {
  return { id: e.id, type: e.type, timestamp: e.createdAt.toISOString(), mode: e.mode, paymentId: e.paymentId, data: e.payload };
}

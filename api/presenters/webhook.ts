import type { PaymentEventRow } from "../../db/paymentEvents.ts";
import { eventEnvelope } from "../../domain/eventPayload.ts";
import type { deliveriesOfEvents } from "../../db/webhookDeliveries.ts";
import type { WebhookEndpointRow } from "../../db/webhookEndpoints.ts";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** An endpoint; its secret only where the merchant must learn it (creation, rotation). */
export function presentWebhookEndpoint(e: WebhookEndpointRow, options: { withSecret?: boolean } = {}, now = new Date()) {
  const overlap = e.previousSecret && e.previousSecretExpiresAt && e.previousSecretExpiresAt > now ? e.previousSecretExpiresAt : null;
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    events: e.events,
    mode: e.mode,
    status: e.disabledAt ? "disabled" : "enabled",
    disabledAt: iso(e.disabledAt),
    disabledReason: e.disabledReason,
    /** While set, deliveries carry a second signature made with the previous secret. */
    previousSecretExpiresAt: iso(overlap),
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
    ...(options.withSecret ? { secret: e.secret } : {}),
  };
}

type DeliveryWithAttempts = Awaited<ReturnType<typeof deliveriesOfEvents>>[number];

/** A delivery and its attempt log, for `GET /events/{id}`. */
export function presentDelivery(d: DeliveryWithAttempts) {
  return {
    id: d.id,
    endpointId: d.endpointId,
    target: d.endpointId ? "endpoint" : "callback_url",
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: d.status === "pending" ? d.nextAttemptAt.toISOString() : null,
    lastError: d.lastError,
    deliveredAt: iso(d.deliveredAt),
    createdAt: d.createdAt.toISOString(),
    attemptLog: d.attemptLog.map((a) => ({
      attempt: a.attempt,
      statusCode: a.statusCode,
      latencyMs: a.latencyMs,
      responseExcerpt: a.responseExcerpt,
      error: a.error,
      at: a.at.toISOString(),
    })),
  };
}

/** An event as in webhook bodies (the same JSON), with its feed position. */
export const presentEvent = (e: PaymentEventRow) => ({ ...eventEnvelope(e), position: e.feedPosition });

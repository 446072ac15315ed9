import { Elysia, t } from "elysia";
import { assignFeedPositions, findMerchantEvent, listFeed } from "../../db/eventFeed.ts";
import { findPayment } from "../../db/payments.ts";
import { deliveriesOfEvents } from "../../db/webhookDeliveries.ts";
import { NotFoundError, ValidationError } from "../../domain/errors.ts";
import { isPaymentEventType } from "../../domain/paymentEvents.ts";
import type { ApiDeps } from "../deps.ts";
import { authPlugin, type AuthContext } from "../plugins/auth.ts";
import { presentDelivery, presentEvent } from "../presenters/webhook.ts";
import { uuidPattern } from "../schemas.ts";
import { redeliverOwnEvent } from "../services/redeliverEvent.ts";

const eventParams = t.Object({ id: t.String({ maxLength: 100, description: "Event id (uuid; the webhook-id header)" }) });

/**
 * The event feed (API key + secret): a merchant catches up without webhooks by
 * paging from its last seen event, in the order events committed (a payment's own
 * events in the order they happened); and redelivery of one event.
 */
export const eventRoutes = ({ db, config, credentials }: ApiDeps) => {
  async function ownEvent(auth: AuthContext, id: string) {
    if (!uuidPattern.test(id)) throw new ValidationError("id", "Invalid path parameter 'id': expected a uuid");
    const event = await findMerchantEvent(db, auth.merchantId, auth.mode, id);
    if (!event) throw new NotFoundError(`No event with id ${id}.`);
    return event;
  }

  return new Elysia({ prefix: "/events", tags: ["Webhooks"] })
    .use(authPlugin(credentials))
    .get(
      "",
      async ({ auth, query }) => {
        const limit = query.limit === undefined ? 20 : Number(query.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new ValidationError("limit", "Invalid query parameter 'limit': an integer from 1 to 100");
        if (query.paymentId !== undefined && !uuidPattern.test(query.paymentId)) {
          throw new ValidationError("paymentId", "Invalid query parameter 'paymentId': expected a uuid");
        }
        if (query.type !== undefined && !isPaymentEventType(query.type)) throw new ValidationError("type", `Invalid query parameter 'type': unknown event type`);
        // Events committed by now get their place in the feed before it is read.
        await assignFeedPositions(db);
        let afterPosition = 0;
        if (query.startingAfter !== undefined && query.startingAfter !== "") {
          const cursor = uuidPattern.test(query.startingAfter) ? await findMerchantEvent(db, auth.merchantId, auth.mode, query.startingAfter) : undefined;
          if (!cursor) throw new ValidationError("startingAfter", "Invalid query parameter 'startingAfter': not an event id of this account");
          // Committed but not positioned yet (its webhook can arrive first; another session is
          // positioning now): its place will be after every event placed so far, so nothing
          // comes after it yet. The same cursor is given back, to ask again.
          if (cursor.feedPosition === null) return { success: true, events: [], hasMore: false, nextCursor: cursor.id };
          afterPosition = cursor.feedPosition;
        }
        const rows = await listFeed(db, { merchantId: auth.merchantId, mode: auth.mode, afterPosition, limit, paymentId: query.paymentId, type: query.type });
        const page = rows.slice(0, limit);
        return {
          success: true,
          events: page.map(presentEvent),
          hasMore: rows.length > limit,
          // The last event listed: pass it as startingAfter to continue (or to poll for newer ones).
          nextCursor: page.at(-1)?.id ?? (query.startingAfter || null),
        };
      },
      {
        auth: "secret",
        query: t.Object(
          {
            startingAfter: t.Optional(t.String({ maxLength: 100, description: "Event id: list the events after it" })),
            limit: t.Optional(t.String({ maxLength: 4, description: "1 to 100, default 20" })),
            paymentId: t.Optional(t.String({ maxLength: 100, description: "Only this payment's events" })),
            type: t.Optional(t.String({ maxLength: 64, description: "Only events of this type" })),
          },
          { additionalProperties: true },
        ),
        detail: { summary: "The account's events in feed order (cursor: startingAfter = the last event id seen)" },
      },
    )
    .get(
      "/:id",
      async ({ auth, params }) => {
        const event = await ownEvent(auth, params.id);
        const deliveries = await deliveriesOfEvents(db, [event.id]);
        return { success: true, event: presentEvent(event), deliveries: deliveries.map(presentDelivery) };
      },
      { auth: "secret", params: eventParams, detail: { summary: "One event, with each delivery and its attempts" } },
    )
    .post(
      "/:id/redeliver",
      async ({ auth, params, set }) => {
        const event = await ownEvent(auth, params.id);
        const payment = event.paymentId ? await findPayment(db, event.paymentId) : undefined;
        const deliveries = await redeliverOwnEvent({ db, config }, event, payment?.callbackUrl ?? null);
        set.status = 202;
        return { success: true, eventId: event.id, deliveries };
      },
      { auth: "secret", params: eventParams, detail: { summary: "Send the event again to the payment's callbackUrl and every endpoint that takes it (at most WEBHOOK_REDELIVERIES_PER_HOUR times an hour: then 429 with Retry-After)" } },
    );
};

/** Payment events (the feed and the webhook outbox) and their delivery. */
import { sql } from "drizzle-orm";
import { bigint, bigserial, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { modes } from "../../domain/mode.ts";
import { paymentEventTypes } from "../../domain/paymentEvents.ts";
import { createdAt } from "./columns.ts";
import { merchants } from "./merchants.ts";
import { payments } from "./payments.ts";

/**
 * The event feed and the webhook outbox: one row per payment event, written in the
 * transaction that changed the payment, so an event exists exactly when its change
 * does. The id is the `webhook-id` of every delivery of it.
 */
export const paymentEvents = pgTable(
  "payment_events",
  {
    id: uuid("id").primaryKey(),
    /** Insert order. A payment's writers hold its row lock, so for one payment this is the order of its changes. */
    sequence: bigserial("sequence", { mode: "number" }).notNull(),
    /**
     * Position in the merchant's feed of this mode (`GET /events`): 1, 2, 3… per merchant and
     * mode, so it tells nothing of other accounts' events. Given after commit, in commit
     * order, by `assignFeedPositions`: a reader's cursor can never pass an event that commits later.
     */
    feedPosition: bigint("feed_position", { mode: "number" }),
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id, { onDelete: "cascade" }),
    mode: text("mode", { enum: modes }).notNull(),
    /** Null for an event of the account rather than of a payment (`account.changed`, `test.ping`). */
    paymentId: uuid("payment_id").references(() => payments.id, { onDelete: "cascade" }),
    type: text("type", { enum: paymentEventTypes }).notNull(),
    /** The event's `data`: `{payment}` as it was at that moment, plus details of forwarded/refunded. */
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().default(sql`clock_timestamp()`),
  },
  (t) => [
    uniqueIndex("payment_events_sequence_idx").on(t.sequence),
    // Only positioned events: an event is inserted without a position (reads of the feed and of the
    // last position all ask for positioned ones), so inserts skip this index.
    uniqueIndex("payment_events_merchant_feed_idx").on(t.merchantId, t.mode, t.feedPosition).where(sql`feed_position is not null`),
    index("payment_events_payment_idx").on(t.paymentId, t.sequence),
    index("payment_events_unpositioned_idx").on(t.sequence).where(sql`feed_position is null`),
    // Health reads recent reverts (a reorg deeper than the required confirmations) without scanning the feed.
    index("payment_events_reverted_idx").on(t.createdAt).where(sql`type = 'payment.reverted'`),
  ],
);

/**
 * A merchant's webhook endpoints, per mode. The secret signs every delivery, so it is
 * kept as is (a hash could not sign); it is never logged. During a rotation the
 * previous secret also signs until `previousSecretExpiresAt`.
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id, { onDelete: "cascade" }),
    mode: text("mode", { enum: modes }).notNull(),
    url: text("url").notNull(),
    description: text("description"),
    /** Event types delivered here, or `["*"]` for all. */
    events: text("events").array().notNull().default(sql`array['*']::text[]`),
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: timestamp("previous_secret_expires_at", { withTimezone: true }),
    /** Set when the endpoint answered 410 Gone: nothing more is sent to it. */
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
    disabledReason: text("disabled_reason"),
    /** Removed by the merchant; kept so its deliveries' history stays readable. */
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("webhook_endpoints_merchant_idx").on(t.merchantId, t.mode)],
);

/**
 * The per-merchant, per-mode secret that signs deliveries to payments' `callbackUrl`s
 * (created on first use; rotated like an endpoint's).
 */
export const webhookSigningSecrets = pgTable(
  "webhook_signing_secrets",
  {
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id, { onDelete: "cascade" }),
    mode: text("mode", { enum: modes }).notNull(),
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: timestamp("previous_secret_expires_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.mode] })],
);

/**
 * One event to one target (an endpoint, or the payment's `callbackUrl` when
 * `endpointId` is null). The row is the truth; a `webhook` job only prompts an
 * attempt, and the relay re-enqueues due rows whose job vanished.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    eventId: uuid("event_id").notNull().references(() => paymentEvents.id, { onDelete: "cascade" }),
    endpointId: uuid("endpoint_id").references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id, { onDelete: "cascade" }),
    mode: text("mode", { enum: modes }).notNull(),
    url: text("url").notNull(),
    /**
     * The merchant's redelivery request that made this delivery (one id per `POST /events/{id}/redeliver`,
     * shared by its deliveries); null for the event's own. Counted to bound redeliveries per hour.
     */
    redeliveryId: uuid("redelivery_id"),
    /** pending → delivered (a 2xx), failed (attempts exhausted, or refused as unsafe), disabled (410, endpoint removed). */
    status: text("status", { enum: ["pending", "delivered", "failed", "disabled"] }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    /** An attempt in flight holds the row until then, so two jobs never send the same delivery at once. */
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    /** A relay enqueued its job: the other relays leave the row until then (a job that vanished is enqueued again after). */
    relayedUntil: timestamp("relayed_until", { withTimezone: true }),
    lastError: text("last_error"),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("webhook_deliveries_event_idx").on(t.eventId),
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt).where(sql`status = 'pending'`),
    index("webhook_deliveries_endpoint_idx").on(t.endpointId).where(sql`status = 'pending'`),
    // Attempts in flight per merchant, and per URL among them (claimDelivery's shares of the slots).
    index("webhook_deliveries_in_flight_idx").on(t.merchantId, t.lockedUntil).where(sql`status = 'pending'`),
  ],
);

/** Every HTTP attempt of a delivery: what came back and how long it took. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    deliveryId: uuid("delivery_id").notNull().references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    statusCode: integer("status_code"),
    latencyMs: integer("latency_ms").notNull(),
    /** The first kilobyte of the response body. */
    responseExcerpt: text("response_excerpt"),
    error: text("error"),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("webhook_attempts_delivery_idx").on(t.deliveryId, t.attempt)],
);

import { randomUUID } from "node:crypto";
import { and, inArray, isNull, sql } from "drizzle-orm";
import { eventDataJson } from "../domain/eventPayload.ts";
import { filterMatches, type PaymentEventType } from "../domain/paymentEvents.ts";
import { queryRows, type Db } from "./client.ts";
import { paymentEvents, webhookDeliveries, webhookEndpoints, type PaymentRow } from "./schema/index.ts";
import type { Mode } from "../domain/mode.ts";

export type PaymentEventRow = typeof paymentEvents.$inferSelect;

/** Postgres channel announcing new deliveries; the NOTIFY is sent on commit of the event's transaction. */
export const WEBHOOK_CHANNEL = "stablepay_webhooks";

export type NewPaymentEvent = {
  /** The payment as it is after the change (in this transaction). */
  payment: PaymentRow;
  type: PaymentEventType;
  /** Details added to the event's `data` beside `payment` (e.g. a refund's transaction). */
  extra?: Record<string, unknown>;
};

/**
 * Writes events and their webhook deliveries (to the payment's `callbackUrl` and to
 * every enabled endpoint of the merchant and mode whose filter takes it) with `tx`, which
 * must be the transaction that makes the change: the event exists exactly when the
 * change commits (transactional outbox). Callers hold the payment's row lock, as
 * every payment writer does, so one payment's events keep the order of its changes.
 * The NOTIFY wakes the relay once the transaction commits.
 */
export async function recordPaymentEvents(tx: Db, events: readonly NewPaymentEvent[]): Promise<RecordedEvent[]> {
  return insertPaymentEvents(tx, events, true);
}

/** `recordPaymentEvents` for a caller that needs nothing back (the reconcile job): no rows are returned. */
export async function writePaymentEvents(tx: Db, events: readonly NewPaymentEvent[]): Promise<void> {
  await insertPaymentEvents(tx, events, false);
}

async function insertPaymentEvents(tx: Db, events: readonly NewPaymentEvent[], returning: boolean): Promise<RecordedEvent[]> {
  if (events.length === 0) return [];
  // The endpoints are read first (the payloads are built meanwhile): event ids are made
  // here, so every delivery is known before anything is written, and events and
  // deliveries go in one statement.
  const merchantIds = [...new Set(events.map((e) => e.payment.merchantId))];
  const targets = enabledEndpointsOf(tx, merchantIds);

  // The reconcile job writes thousands of events a second, several per payment, so what
  // events share is sent once: per subject (a payment, and its payload: its event view,
  // plus `extra` for an event that has one), then per event its id, type and subject.
  const subjects: Array<{ payment: PaymentRow; payload: string }> = [];
  const shared = new Map<PaymentRow, number>();
  const subjectOf = ({ payment, extra }: NewPaymentEvent): number => {
    const known = extra ? undefined : shared.get(payment);
    if (known !== undefined) return known;
    const payload = eventDataJson(payment, extra);
    const index = subjects.push({ payment, payload });
    if (!extra) shared.set(payment, index);
    return index;
  };
  const rows = events.map((event) => ({
    id: randomUUID(),
    merchantId: event.payment.merchantId,
    mode: event.payment.mode,
    paymentId: event.payment.id,
    type: event.type,
    subject: subjectOf(event),
  }));

  // Deliveries as (event, target) pairs, each 1-based into `rows` and into the distinct targets.
  const endpoints = await targets;
  const targetIndex = new Map<string, number>();
  const targetList: Array<{ endpointId: string | null; url: string }> = [];
  const deliveries = rows.flatMap((event, i) =>
    deliveriesFor(event, events[i]!.payment.callbackUrl, endpoints).map(({ endpointId, url }) => {
      const key = `${endpointId ?? ""} ${url}`;
      let target = targetIndex.get(key);
      if (target === undefined) targetIndex.set(key, (target = targetList.push({ endpointId, url })));
      return { event: i + 1, target };
    }),
  );
  const column = <T, U>(list: readonly T[], f: (item: T) => U) => sql.param(list.map(f));

  // `order by n` gives the rows `sequence` in the order of `events`. Deliveries' foreign keys
  // are checked at the end of the statement, when their events exist.
  const inserted = queryRows<{ id: string; sequence: string }>(
    tx,
    sql`with payloads as materialized (select ${`[${subjects.map((s) => s.payload).join(",")}]`}::text::jsonb as list),
      events as materialized (
        select e.id, e.type, e.n, s.payment_id, s.merchant_id, s.mode, (select list from payloads) -> (e.subject - 1)::int as payload
        from unnest(${column(rows, (r) => r.id)}::uuid[], ${column(rows, (r) => r.type)}::text[], ${column(rows, (r) => r.subject)}::int[])
            with ordinality as e(id, type, subject, n)
          join unnest(${column(subjects, (s) => s.payment.id)}::uuid[], ${column(subjects, (s) => s.payment.merchantId)}::uuid[], ${column(subjects, (s) => s.payment.mode)}::text[])
            with ordinality as s(payment_id, merchant_id, mode, n) on s.n = e.subject),
      inserted as (
        insert into payment_events (id, merchant_id, mode, payment_id, type, payload)
        select id, merchant_id, mode, payment_id, type, payload from events order by n
        ${returning ? sql`returning id, sequence` : sql``}),
      delivered as (
        insert into webhook_deliveries (event_id, endpoint_id, merchant_id, mode, url)
        select e.id, t.endpoint_id, e.merchant_id, e.mode, t.url
        from unnest(${column(deliveries, (d) => d.event)}::int[], ${column(deliveries, (d) => d.target)}::int[]) as d(event, target)
          join events e on e.n = d.event
          join unnest(${column(targetList, (t) => t.endpointId)}::uuid[], ${column(targetList, (t) => t.url)}::text[]) with ordinality as t(endpoint_id, url, n) on t.n = d.target)
      ${returning ? sql`select id, sequence::text from inserted` : sql`select`}`,
  );
  // Sent behind the insert, not after its answer (the connection pipelines them).
  const notified = deliveries.length > 0 ? tx.execute(sql`select pg_notify(${WEBHOOK_CHANNEL}, '')`) : undefined;
  const [written] = await Promise.all([inserted, notified]);
  if (!returning) return [];
  const sequences = new Map(written.map((r) => [r.id, Number(r.sequence)]));
  return rows
    .map((r) => ({ id: r.id, sequence: sequences.get(r.id)!, merchantId: r.merchantId, mode: r.mode, paymentId: r.paymentId, type: r.type }))
    .sort((a, b) => a.sequence - b.sequence);
}

/** One event, as `recordPaymentEvents` (sweeps and refunds record `payment.forwarded` / `payment.refunded` with it). */
export async function recordPaymentEvent(tx: Db, payment: PaymentRow, type: PaymentEventType, extra?: Record<string, unknown>): Promise<RecordedEvent> {
  const [event] = await recordPaymentEvents(tx, [{ payment, type, extra }]);
  return event!;
}

/** The merchants' endpoints that still take deliveries (not disabled by a 410, not removed); `deliveriesFor` picks by mode and filter. */
const enabledEndpointsOf = (tx: Db, merchantIds: string[]): Promise<EndpointTarget[]> =>
  tx
    .select({ id: webhookEndpoints.id, merchantId: webhookEndpoints.merchantId, mode: webhookEndpoints.mode, url: webhookEndpoints.url, events: webhookEndpoints.events })
    .from(webhookEndpoints)
    .where(and(inArray(webhookEndpoints.merchantId, merchantIds), isNull(webhookEndpoints.disabledAt), isNull(webhookEndpoints.deletedAt)));

type EndpointTarget = { id: string; merchantId: string; mode: Mode; url: string; events: string[] };

/** What `recordPaymentEvents` returns of each event it wrote. */
export type RecordedEvent = Pick<PaymentEventRow, "id" | "sequence" | "merchantId" | "mode" | "paymentId" | "type">;

function deliveriesFor(event: Pick<PaymentEventRow, "id" | "merchantId" | "mode" | "type">, callbackUrl: string | null, endpoints: readonly EndpointTarget[]) {
  const base = { eventId: event.id, merchantId: event.merchantId, mode: event.mode };
  return [
    ...(callbackUrl ? [{ ...base, endpointId: null, url: callbackUrl }] : []),
    ...endpoints
      .filter((e) => e.merchantId === event.merchantId && e.mode === event.mode && filterMatches(e.events, event.type))
      .map((e) => ({ ...base, endpointId: e.id, url: e.url })),
  ];
}

/**
 * Re-sends an event, in the caller's transaction: new deliveries, all marked with
 * `redeliveryId`, to its payment's `callbackUrl` and to every enabled endpoint whose filter
 * takes it now. Earlier deliveries and their attempts stay. Returns how many were made.
 */
export async function redeliverEvent(tx: Db, event: PaymentEventRow, callbackUrl: string | null, redeliveryId: string): Promise<number> {
  return queueDeliveries(tx, event, callbackUrl, { redeliveryId });
}

/**
 * Deliveries of a written event, in the caller's transaction: to `callbackUrl` and to every
 * enabled endpoint whose filter takes it (or only to `endpointId`, whatever its filter: a test
 * event sent to it). Returns how many were made.
 */
export async function queueDeliveries(tx: Db, event: PaymentEventRow, callbackUrl: string | null, options: { redeliveryId?: string; endpointId?: string } = {}): Promise<number> {
  const { redeliveryId = null, endpointId } = options;
  const enabled = await enabledEndpointsOf(tx, [event.merchantId]);
  const endpoints = endpointId ? enabled.filter((e) => e.id === endpointId).map((e) => ({ ...e, events: ["*"] })) : enabled;
  const deliveries = deliveriesFor(event, callbackUrl, endpoints).map((d) => ({ ...d, redeliveryId }));
  if (deliveries.length === 0) return 0;
  await tx.insert(webhookDeliveries).values(deliveries);
  await tx.execute(sql`select pg_notify(${WEBHOOK_CHANNEL}, '')`);
  return deliveries.length;
}

/** Per chain: payments a reorg reverted after they had completed, within the last `withinHours` (count and the latest). */
export async function revertsAfterCompletion(db: Db, withinHours: number): Promise<Map<string, { count: number; lastAt: Date }>> {
  const rows = await queryRows<{ chain_id: string; n: number; last_at: string }>(db, sql`
    select p.chain_id, count(distinct e.payment_id)::int as n, max(e.created_at)::text as last_at
    from payment_events e join payments p on p.id = e.payment_id
    where e.type = 'payment.reverted' and (e.payload->'reverted'->>'afterCompletion')::boolean
      and e.created_at > now() - make_interval(hours => ${withinHours})
    group by p.chain_id`);
  return new Map(rows.map((r) => [r.chain_id, { count: r.n, lastAt: new Date(r.last_at) }]));
}

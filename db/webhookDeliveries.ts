import { and, asc, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";
import { webhookAttempts, webhookDeliveries } from "./schema/index.ts";
import { storableText } from "../domain/storableText.ts";
import { disableWebhookEndpoint } from "./webhookEndpoints.ts";

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;

/** Pending, held by no attempt, and due (a second of slack covers the clocks of Redis and Postgres). */
const attemptableNow = (id: string) =>
  and(
    eq(webhookDeliveries.id, id),
    eq(webhookDeliveries.status, "pending"),
    or(isNull(webhookDeliveries.lockedUntil), lt(webhookDeliveries.lockedUntil, sql`now()`)),
    lte(webhookDeliveries.nextAttemptAt, sql`now() + interval '1 second'`),
  );

/**
 * Takes a pending delivery for one attempt: holds it until `leaseMs` from now so a
 * duplicate job cannot send it at the same time. Undefined when it is no longer
 * pending, another attempt holds it, or its next attempt is not due: a retry's job that
 * comes back early (BullMQ recovering a stalled job before moving it to its delay) must
 * not skip the schedule; the relay enqueues the delivery again once it is due. A second
 * of slack covers the clocks of Redis and Postgres. Also undefined while the merchant has
 * `caps.perUrl` attempts to the same URL, or `caps.perMerchant` to any of its URLs, in
 * flight (`waitsForItsUrl` tells that case apart).
 */
export async function claimDelivery(db: Db, id: string, leaseMs: number, caps: { perUrl: number; perMerchant: number }): Promise<WebhookDeliveryRow | undefined> {
  return db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    const [target] = await tx.select({ url: webhookDeliveries.url, merchantId: webhookDeliveries.merchantId }).from(webhookDeliveries).where(eq(webhookDeliveries.id, id));
    if (!target) return undefined;
    // Claims of one merchant take turns: each counts the attempts the ones before it committed.
    // A holder stuck (its host gone silent) must not hold this slot and connection for hours:
    // the wait gives up (55P03) and the job is tried again.
    await tx.execute(sql.raw("set local lock_timeout = '10s'"));
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`webhook merchant ${target.merchantId}`}, 0))`);
    const inFlight = sql`select o.url from webhook_deliveries o where o.merchant_id = ${target.merchantId} and o.status = 'pending' and o.locked_until > now()`;
    const [row] = await tx
      .update(webhookDeliveries)
      // To the millisecond: the claim is fenced by this value (`releaseDelivery`, `recordAttempt`), and a JS Date holds no finer.
      .set({ lockedUntil: sql`date_trunc('milliseconds', now() + make_interval(secs => ${leaseMs / 1000}::double precision))` })
      .where(
        and(
          attemptableNow(id),
          sql`(select count(*) filter (where f.url = ${target.url}) < ${caps.perUrl} and count(*) < ${caps.perMerchant} from (${inFlight}) f)`,
        ),
      )
      .returning();
    return row;
  });
}

/** Whether a delivery `claimDelivery` did not give could be attempted now but for its URL's attempts in flight. */
export async function waitsForItsUrl(db: Db, id: string): Promise<boolean> {
  const [row] = await db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(attemptableNow(id));
  return row !== undefined;
}

/** The delivery as this claim left it: held by this claim still (its lease not taken over by another after it ran out). */
const heldBy = (claim: WebhookDeliveryRow) =>
  claim.lockedUntil === null ? sql`false` : sql`${webhookDeliveries.lockedUntil} = ${claim.lockedUntil.toISOString()}::timestamptz`;

/**
 * Lets go of a claimed delivery without an attempt (the job failed before sending) — only
 * if this claim still holds it: one whose lease ran out and was claimed again must not
 * clear the new holder's lease (a third job would then send beside it).
 */
export async function releaseDelivery(db: Db, claim: WebhookDeliveryRow): Promise<void> {
  await db.update(webhookDeliveries).set({ lockedUntil: null }).where(and(eq(webhookDeliveries.id, claim.id), heldBy(claim)));
}

export type AttemptRecord = {
  statusCode: number | null;
  latencyMs: number;
  responseExcerpt: string | null;
  error: string | null;
};

/** What an attempt leads to: the delivery's next state. */
export type DeliveryOutcome =
  | { status: "delivered" }
  | { status: "pending"; retryInMs: number }
  | { status: "failed" }
  | { status: "disabled" };

/**
 * Logs one attempt and moves the delivery on, in one transaction: delivered, failed,
 * disabled, or pending again with its next attempt time. Releases the claim if it still
 * holds it. A delivery stopped while the attempt was in flight (its endpoint removed or
 * disabled) stays stopped unless the attempt delivered it. When another attempt was
 * recorded meanwhile (this one outlived its lease and the delivery was claimed again), this
 * one is still logged, after it, and only a delivery changes the outcome: the receiver has
 * the event, and sending it again would be a duplicate.
 * `disableEndpoint` (a 410) disables the endpoint in the same transaction, so the delivery
 * is never recorded without it.
 */
export async function recordAttempt(
  db: Db,
  delivery: WebhookDeliveryRow,
  attempt: AttemptRecord | null,
  outcome: DeliveryOutcome,
  options: { disableEndpoint?: string } = {},
): Promise<void> {
  await db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    const [current] = await tx.select({ attempts: webhookDeliveries.attempts }).from(webhookDeliveries).where(eq(webhookDeliveries.id, delivery.id)).for("update");
    if (!current) return;
    const overtaken = current.attempts !== delivery.attempts;
    const number = current.attempts + (attempt ? 1 : 0);
    if (attempt) {
      // The reply is the receiver's bytes: a NUL in them must not make the attempt unrecordable (and so sent again).
      const stored = { ...attempt, responseExcerpt: storableText(attempt.responseExcerpt), error: storableText(attempt.error) };
      await tx.insert(webhookAttempts).values({ deliveryId: delivery.id, attempt: number, ...stored }).onConflictDoNothing();
    }
    const release = { lockedUntil: sql`case when ${heldBy(delivery)} then null else ${webhookDeliveries.lockedUntil} end` };
    if (overtaken && outcome.status !== "delivered") {
      await tx.update(webhookDeliveries).set({ attempts: number, ...release, updatedAt: sql`now()` }).where(eq(webhookDeliveries.id, delivery.id));
    } else {
      await tx
        .update(webhookDeliveries)
        .set({
          status: outcome.status === "delivered" ? "delivered" : sql`case when ${webhookDeliveries.status} = 'pending' then ${outcome.status} else ${webhookDeliveries.status} end`,
          attempts: number,
          ...(outcome.status === "delivered" ? { lockedUntil: null } : release),
          lastError: outcome.status === "delivered" ? null : storableText(attempt?.error ?? (attempt?.statusCode ? `HTTP ${attempt.statusCode}` : null)),
          deliveredAt: outcome.status === "delivered" ? sql`now()` : null,
          nextAttemptAt: outcome.status === "pending" ? sql`now() + make_interval(secs => ${outcome.retryInMs / 1000}::double precision)` : undefined,
          updatedAt: sql`now()`,
        })
        .where(eq(webhookDeliveries.id, delivery.id));
    }
    if (options.disableEndpoint && delivery.endpointId) await disableWebhookEndpoint(tx, delivery.endpointId, options.disableEndpoint);
  });
}

/**
 * Claims up to `limit` pending deliveries whose attempt is due, that no attempt holds and
 * no relay has enqueued within `leaseMs`: marks them relayed until then and returns their
 * ids, oldest due first. Their jobs are about to be enqueued, or vanished (Redis flushed,
 * worker killed): a lease that runs out without an attempt makes a row claimable again,
 * and enqueueing twice is harmless (the job id is the delivery's). Rows another relay is
 * claiming are skipped, so relays in several workers share a backlog instead of each
 * re-adding all of it on every wake-up.
 */
export async function claimDueDeliveries(db: Db, limit: number, leaseMs: number): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(
    db,
    sql`update webhook_deliveries set relayed_until = now() + make_interval(secs => ${leaseMs / 1000}::double precision)
      where id in (
        select id from webhook_deliveries
        where status = 'pending' and next_attempt_at <= now() and (locked_until is null or locked_until < now())
          and (relayed_until is null or relayed_until < now())
        order by next_attempt_at, id
        limit ${limit}
        for update skip locked)
      returning id`,
  );
  return rows.map((r) => r.id);
}

/** Gives claimed deliveries back at once (their jobs could not be enqueued). */
export async function releaseRelayed(db: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.execute(sql`update webhook_deliveries set relayed_until = null where id = any(${sql.param([...ids])}::uuid[])`);
}

/** An event's deliveries, each with its attempts, oldest first. */
export async function deliveriesOfEvents(db: Db, eventIds: readonly string[]) {
  if (eventIds.length === 0) return [];
  const deliveries = await db
    .select()
    .from(webhookDeliveries)
    .where(inArray(webhookDeliveries.eventId, [...eventIds]))
    .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id));
  const attempts =
    deliveries.length === 0
      ? []
      : await db
          .select()
          .from(webhookAttempts)
          .where(inArray(webhookAttempts.deliveryId, deliveries.map((d) => d.id)))
          .orderBy(asc(webhookAttempts.attempt));
  return deliveries.map((d) => ({ ...d, attemptLog: attempts.filter((a) => a.deliveryId === d.id) }));
}

/** Makes redelivery requests of one event take turns (in the caller's transaction), across every API replica. */
export async function lockRedeliveriesOf(tx: Db, eventId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`redeliveries of ${eventId}`}, 0))`);
}

/**
 * The redelivery requests of an event made in the last `windowSeconds` (each one counts once,
 * however many deliveries it made), when the oldest of them was made, and the database's now.
 */
export async function recentRedeliveries(db: Db, eventId: string, windowSeconds: number): Promise<{ count: number; oldestAt: Date | null; now: Date }> {
  const [row] = await queryRows<{ count: number; oldest_ms: number | null; now_ms: number }>(
    db,
    sql`select count(distinct redelivery_id)::int as count, (extract(epoch from min(created_at)) * 1000)::float8 as oldest_ms,
               (extract(epoch from now()) * 1000)::float8 as now_ms
        from webhook_deliveries
        where event_id = ${eventId} and redelivery_id is not null and created_at > now() - make_interval(secs => ${windowSeconds})`,
  );
  return { count: row!.count, oldestAt: row!.oldest_ms === null ? null : new Date(row!.oldest_ms), now: new Date(row!.now_ms) };
}

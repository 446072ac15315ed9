import { and, asc, eq, gt, isNotNull, isNull, sql } from "drizzle-orm";
import type { Mode } from "../domain/mode.ts";
import type { PaymentEventType } from "../domain/paymentEvents.ts";
import { queryRows, type Db } from "./client.ts";
import type { PaymentEventRow } from "./paymentEvents.ts";
import { paymentEvents } from "./schema/index.ts";

/** Arbitrary constant naming the feed sequencer's advisory lock. */
const FEED_LOCK = 726_006;

/**
 * Gives committed events their feed position, in commit order: under one lock, every
 * committed event without a position gets the next ones of its merchant and mode (by
 * insert order within the batch). An event that commits later can only get a later
 * position, so a reader who has seen position n has seen every event that will ever sit
 * below n — a cursor on a plain insert sequence would skip an event whose transaction
 * committed late. Positions count each merchant's events of a mode alone (1, 2, 3…): one
 * account's positions never move with another's volume.
 */
export async function assignFeedPositions(db: Db, batch = 5_000): Promise<number> {
  let total = 0;
  for (;;) {
    const [waiting] = await db.select({ id: paymentEvents.id }).from(paymentEvents).where(isNull(paymentEvents.feedPosition)).limit(1);
    if (!waiting) return total;
    const positioned = await positionBatch(db, batch);
    total += positioned;
    if (positioned < batch) return total;
  }
}

async function positionBatch(db: Db, batch: number): Promise<number> {
  return db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    // Another session positioning now (or one stuck holding the lock: a host gone silent) does
    // this for everyone; waiting on it would hold this relay (no webhook enqueued) or reader.
    const [lock] = await queryRows<{ taken: boolean }>(tx, sql`select pg_try_advisory_xact_lock(${FEED_LOCK}) as taken`);
    if (!lock?.taken) return 0;
    const rows = (await tx.execute(sql`
      with waiting as (
             select id, merchant_id, mode, row_number() over (partition by merchant_id, mode order by sequence) as rn
             from (select id, merchant_id, mode, sequence from payment_events where feed_position is null order by sequence limit ${batch}) w),
           bases as (
             select k.merchant_id, k.mode,
                    (select coalesce(max(p.feed_position), 0) from payment_events p
                      where p.merchant_id = k.merchant_id and p.mode = k.mode and p.feed_position is not null) as base
             from (select distinct merchant_id, mode from waiting) k)
      update payment_events e set feed_position = b.base + s.rn
      from waiting s join bases b on b.merchant_id = s.merchant_id and b.mode = s.mode
      where e.id = s.id
      returning e.id`)) as unknown as unknown[];
    return rows.length;
  });
}

/** An event by id, or undefined. */
export async function findEvent(db: Db, id: string): Promise<PaymentEventRow | undefined> {
  const [row] = await db.select().from(paymentEvents).where(eq(paymentEvents.id, id));
  return row;
}

/** An event of this merchant and mode, or undefined. */
export async function findMerchantEvent(db: Db, merchantId: string, mode: Mode, id: string): Promise<PaymentEventRow | undefined> {
  const [row] = await db
    .select()
    .from(paymentEvents)
    .where(and(eq(paymentEvents.id, id), eq(paymentEvents.merchantId, merchantId), eq(paymentEvents.mode, mode)));
  return row;
}

/**
 * The merchant's feed after a position, in feed order; `limit + 1` rows are read so
 * the caller knows whether more are waiting. Only positioned events are listed.
 */
export async function listFeed(
  db: Db,
  query: { merchantId: string; mode: Mode; afterPosition: number; limit: number; paymentId?: string; type?: string },
): Promise<PaymentEventRow[]> {
  return db
    .select()
    .from(paymentEvents)
    .where(
      and(
        eq(paymentEvents.merchantId, query.merchantId),
        eq(paymentEvents.mode, query.mode),
        isNotNull(paymentEvents.feedPosition),
        gt(paymentEvents.feedPosition, query.afterPosition),
        query.paymentId ? eq(paymentEvents.paymentId, query.paymentId) : undefined,
        query.type ? eq(paymentEvents.type, query.type as PaymentEventType) : undefined,
      ),
    )
    .orderBy(asc(paymentEvents.feedPosition))
    .limit(query.limit + 1);
}

/** A payment's events in the order they happened (positioned or not yet). */
export async function eventsOfPayment(db: Db, paymentId: string): Promise<PaymentEventRow[]> {
  return db.select().from(paymentEvents).where(eq(paymentEvents.paymentId, paymentId)).orderBy(asc(paymentEvents.sequence));
}

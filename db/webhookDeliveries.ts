import { and, asc, eq, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";
import { webhookAttempts, webhookDeliveries } from "./schema/index.ts";

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;

/**
 * Takes a pending delivery for one attempt: holds it until `leaseMs` from now so a
 * duplicate job cannot send it at the same time. Undefined when it is no longer
 * pending or another attempt holds it.
 */
export async function claimDelivery(db: Db, id: string, leaseMs: number): Promise<WebhookDeliveryRow | undefined> {
  const [row] = await db
    .update(webhookDeliveries)
    .set({ lockedUntil: sql`now() + make_interval(secs => ${leaseMs / 1000}::double precision)` })
    .where(
      and(
        eq(webhookDeliveries.id, id),
        eq(webhookDeliveries.status, "pending"),
        or(isNull(webhookDeliveries.lockedUntil), lt(webhookDeliveries.lockedUntil, sql`now()`)),
      ),
    )
    .returning();
  return row;
}

/** Lets go of a claimed delivery without an attempt (the job failed before sending). */
export async function releaseDelivery(db: Db, id: string): Promise<void> {
  await db.update(webhookDeliveries).set({ lockedUntil: null }).where(eq(webhookDeliveries.id, id));
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
 * disabled, or pending again with its next attempt time. Releases the claim.
 */
export async function recordAttempt(db: Db, delivery: WebhookDeliveryRow, attempt: AttemptRecord | null, outcome: DeliveryOutcome): Promise<void> {
  await db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    const number = delivery.attempts + (attempt ? 1 : 0);
    if (attempt) {
      await tx.insert(webhookAttempts).values({ deliveryId: delivery.id, attempt: number, ...attempt }).onConflictDoNothing();
    }
    await tx
      .update(webhookDeliveries)
      .set({
        status: outcome.status,
        attempts: number,
        lockedUntil: null,
        lastError: outcome.status === "delivered" ? null : (attempt?.error ?? (attempt?.statusCode ? `HTTP ${attempt.statusCode}` : null)),
        deliveredAt: outcome.status === "delivered" ? sql`now()` : null,
        nextAttemptAt: outcome.status === "pending" ? sql`now() + make_interval(secs => ${outcome.retryInMs / 1000}::double precision)` : undefined,
        updatedAt: sql`now()`,
      })
      .where(eq(webhookDeliveries.id, delivery.id));
  });
}

/** Where a scan of due deliveries stopped: the last row's due time (as Postgres prints it, microseconds kept) and id. */
export type DueCursor = { nextAttemptAt: string; id: string };

/**
 * Pending deliveries whose attempt is due and that no attempt holds: either their job
 * is about to run or it vanished (Redis flushed, worker killed). Enqueueing them again
 * is harmless, the job id being the delivery's. In (due time, id) order, after `after`:
 * enqueueing does not change a row, so a scan must page past what it has seen.
 */
export async function dueDeliveries(db: Db, limit: number, after?: DueCursor): Promise<Array<{ id: string; nextAttemptAt: string }>> {
  return queryRows<{ id: string; nextAttemptAt: string }>(
    db,
    sql`select id, next_attempt_at::text as "nextAttemptAt" from webhook_deliveries
      where status = 'pending' and next_attempt_at <= now() and (locked_until is null or locked_until < now())
        ${after ? sql`and (next_attempt_at, id) > (${after.nextAttemptAt}::timestamptz, ${after.id}::uuid)` : sql``}
      order by next_attempt_at, id
      limit ${limit}`,
  );
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

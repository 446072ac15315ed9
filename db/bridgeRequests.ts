import { and, asc, eq, inArray, isNull, or, sql } from "drizzle-orm";
import { CARRYING } from "../domain/bridgeStatus.ts";
import { queryRows, type Db } from "./client.ts";
import { insertRecords } from "./jsonRecords.ts";
import { bridgeFills, bridgeRequests, type BridgeFillRow, type BridgeRequestRow, type NewBridgeRequest } from "./schema/index.ts";

export type { BridgeFillRow, BridgeRequestRow, NewBridgeRequest };

export async function insertBridgeRequest(db: Db, values: NewBridgeRequest): Promise<BridgeRequestRow> {
  // Through insertRecords: `fees` stored as a jsonb object SQL can read.
  const [row] = await insertRecords(db, bridgeRequests, [values]);
  return row!;
}

export async function findBridgeRequest(db: Db, paymentId: string): Promise<BridgeRequestRow | undefined> {
  const [row] = await db.select().from(bridgeRequests).where(eq(bridgeRequests.paymentId, paymentId));
  return row;
}

/** The bridge requests of these payments (the rail's credits and transit read them in one query). */
export const bridgeRequestsOf = (db: Db, paymentIds: readonly string[]): Promise<BridgeRequestRow[]> =>
  paymentIds.length === 0 ? Promise.resolve([]) : db.select().from(bridgeRequests).where(inArray(bridgeRequests.paymentId, [...paymentIds]));

/** The payment behind a bridge's request id, or behind a deposit address (a webhook names one or both). */
export async function paymentOfBridgeRequest(db: Db, adapter: BridgeRequestRow["adapter"], ref: { requestId: string; depositAddress: string | null }): Promise<string | undefined> {
  const rows = await queryRows<{ payment_id: string }>(
    db,
    sql`select payment_id from bridge_requests where adapter = ${adapter}
        and (request_id = ${ref.requestId} or (${ref.depositAddress}::text is not null and lower(deposit_address) = lower(${ref.depositAddress}::text)))
        limit 1`,
  );
  return rows[0]?.payment_id;
}

/** How long a request finished on its fills is read again while its payment has lost them (a reorg on the destination chain). */
const REFILL_WATCH = sql`interval '1 hour'`;

/**
 * Requests still to be watched (the periodic re-drive), least recently read first: past the
 * limit, each still comes round. Also a request finished on its fills in the last hour whose
 * payment no longer holds them (a reorg took the fill): the solver's new fill must be claimed.
 */
export async function unfinishedBridgeRequests(db: Db, limit = 5_000): Promise<string[]> {
  const rows = await db
    .select({ paymentId: bridgeRequests.paymentId })
    .from(bridgeRequests)
    .where(
      or(
        isNull(bridgeRequests.finishedAt),
        sql`${bridgeRequests.progress} = 'success' and ${bridgeRequests.finishedAt} > now() - ${REFILL_WATCH}
            and exists (select 1 from payments p where p.id = ${bridgeRequests.paymentId} and p.status = 'pending')`,
      ),
    )
    .orderBy(sql`${bridgeRequests.checkedAt} asc nulls first`)
    .limit(limit);
  return rows.map((r) => r.paymentId);
}

/** Destination fills claimed by these payments. */
export const bridgeFillsOf = (db: Db, paymentIds: readonly string[]): Promise<BridgeFillRow[]> =>
  paymentIds.length === 0
    ? Promise.resolve([])
    : db.select().from(bridgeFills).where(inArray(bridgeFills.paymentId, [...paymentIds])).orderBy(asc(bridgeFills.txHash), asc(bridgeFills.logIndex));

/** A bridge row locked (`for update`) until the caller's transaction ends. */
export async function lockBridgeRequest(db: Db, paymentId: string): Promise<BridgeRequestRow | undefined> {
  const [row] = await db.select().from(bridgeRequests).where(eq(bridgeRequests.paymentId, paymentId)).for("update");
  return row;
}

export async function updateBridgeRequest(db: Db, paymentId: string, values: Partial<NewBridgeRequest>): Promise<void> {
  await db.update(bridgeRequests).set({ ...values, updatedAt: sql`now()` }).where(eq(bridgeRequests.paymentId, paymentId));
}

/**
 * Claims a destination fill log as a payment's credit. A log already claimed (by this
 * payment or another) is not claimed again: one transfer never credits twice.
 */
export async function claimBridgeFill(db: Db, fill: { chainId: string; txHash: string; logIndex: number; paymentId: string; amount: bigint; blockNumber: bigint }): Promise<boolean> {
  const rows = await db.insert(bridgeFills).values(fill).onConflictDoNothing().returning({ txHash: bridgeFills.txHash });
  return rows.length > 0;
}

/** Whether a fill log is already claimed, and by whom. */
export async function claimedBy(db: Db, chainId: string, txHash: string, logIndex: number): Promise<string | undefined> {
  const [row] = await db
    .select({ paymentId: bridgeFills.paymentId })
    .from(bridgeFills)
    .where(and(eq(bridgeFills.chainId, chainId), eq(bridgeFills.txHash, txHash), eq(bridgeFills.logIndex, logIndex)));
  return row?.paymentId;
}

/**
 * The bridge requests still watched; those not read successfully for `staleSeconds` (never
 * read: since they were made), with the oldest such wait: a bridge that cannot be read holds
 * its unpaid payments `pending` past their deadline; and those `stuck`: carrying the
 * customer's money with nothing changed for `stuckSeconds` (the payment pending meanwhile).
 */
export async function bridgeReadHealth(
  db: Db,
  staleSeconds: number,
  stuckSeconds: number,
): Promise<{ open: number; unread: number; oldestUnreadSeconds: number | null; stuck: number }> {
  const carrying = sql.join(CARRYING.map((p) => sql`${p}`), sql`, `);
  const [row] = await queryRows<{ open: number; unread: number; oldest: number | null; stuck: number }>(db, sql`
    select count(*)::int as open,
      count(*) filter (where coalesce(checked_at, created_at) < now() - make_interval(secs => ${staleSeconds}))::int as unread,
      floor(extract(epoch from now() - min(coalesce(checked_at, created_at)) filter (where coalesce(checked_at, created_at) < now() - make_interval(secs => ${staleSeconds}))))::int as oldest,
      count(*) filter (where progress in (${carrying}) and changed_at < now() - make_interval(secs => ${stuckSeconds}))::int as stuck
    from bridge_requests where finished_at is null`);
  return { open: row?.open ?? 0, unread: row?.unread ?? 0, oldestUnreadSeconds: row?.oldest ?? null, stuck: row?.stuck ?? 0 };
}

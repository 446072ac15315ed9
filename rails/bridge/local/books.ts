import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import { queryRows, type Db } from "../../../db/client.ts";
import {
  localBridgeDeposits,
  localBridgeFactories,
  localBridgeRequests,
  localBridgeTransfers,
  type LocalBridgeDepositRow,
  type LocalBridgeRequestRow,
  type LocalBridgeTransferRow,
} from "../../../db/schema/index.ts";

/** The local relayer's books: its read model and writes, kept beside the relayer (its own tables). */

export type { LocalBridgeDepositRow, LocalBridgeRequestRow, LocalBridgeTransferRow };
export type LocalRequestState = LocalBridgeRequestRow["state"];
export type LocalTransferKind = LocalBridgeTransferRow["kind"];

export async function findFactory(db: Db, chainId: string): Promise<{ relayer: string; address: string } | undefined> {
  const [row] = await db.select().from(localBridgeFactories).where(eq(localBridgeFactories.chainId, chainId));
  return row;
}

export async function saveFactory(db: Db, chainId: string, relayer: string, address: string): Promise<void> {
  await db
    .insert(localBridgeFactories)
    .values({ chainId, relayer, address })
    .onConflictDoUpdate({ target: localBridgeFactories.chainId, set: { relayer, address, createdAt: sql`now()` } });
}

export async function insertRequest(db: Db, values: typeof localBridgeRequests.$inferInsert): Promise<void> {
  await db.insert(localBridgeRequests).values(values);
}

export async function findRequest(db: Db, id: string): Promise<LocalBridgeRequestRow | undefined> {
  const [row] = await db.select().from(localBridgeRequests).where(eq(localBridgeRequests.id, id));
  return row;
}

export async function updateRequest(db: Db, id: string, values: Partial<typeof localBridgeRequests.$inferInsert>): Promise<void> {
  await db.update(localBridgeRequests).set({ ...values, updatedAt: sql`now()` }).where(eq(localBridgeRequests.id, id));
}

/**
 * Requests whose deposit addresses the relayer still watches: every unfinished one, and
 * finished ones for an hour after their expiry (a deposit sent to them then is refunded).
 */
export const watchedRequests = (db: Db) =>
  db
    .select()
    .from(localBridgeRequests)
    .where(sql`${localBridgeRequests.state} in ('open', 'filling', 'refunding', 'failed') or ${localBridgeRequests.expiresAt} > now() - interval '1 hour'`)
    .orderBy(asc(localBridgeRequests.createdAt));

/**
 * Removes the request's deposits recorded in blocks `from`..`to` and not judged yet whose
 * log a scan of those blocks no longer finds (a reorg took them away).
 */
export async function forgetVanishedDeposits(db: Db, requestId: string, from: bigint, to: bigint, found: ReadonlyArray<{ transactionHash: string; logIndex: number }>): Promise<void> {
  const kept = new Set(found.map((l) => `${l.transactionHash.toLowerCase()}:${l.logIndex}`));
  const recorded = await db
    .select({ id: localBridgeDeposits.id, txHash: localBridgeDeposits.txHash, logIndex: localBridgeDeposits.logIndex })
    .from(localBridgeDeposits)
    .where(and(eq(localBridgeDeposits.requestId, requestId), isNull(localBridgeDeposits.disposition), sql`${localBridgeDeposits.blockNumber} between ${from} and ${to}`));
  const gone = recorded.filter((d) => !kept.has(`${d.txHash.toLowerCase()}:${d.logIndex}`)).map((d) => d.id);
  if (gone.length > 0) await db.delete(localBridgeDeposits).where(and(inArray(localBridgeDeposits.id, gone), isNull(localBridgeDeposits.disposition)));
}

/** Records a deposit once (its log is its key); returns whether it is new. */
export async function recordDeposit(db: Db, values: typeof localBridgeDeposits.$inferInsert): Promise<boolean> {
  const rows = await db.insert(localBridgeDeposits).values(values).onConflictDoNothing().returning({ id: localBridgeDeposits.id });
  return rows.length > 0;
}

/** A request's deposits in chain order. */
export const depositsOf = (db: Db, requestIds: readonly string[]): Promise<LocalBridgeDepositRow[]> =>
  requestIds.length === 0
    ? Promise.resolve([])
    : db
        .select()
        .from(localBridgeDeposits)
        .where(inArray(localBridgeDeposits.requestId, [...requestIds]))
        .orderBy(asc(localBridgeDeposits.blockNumber), asc(localBridgeDeposits.logIndex));

export async function decideDeposit(db: Db, id: string, disposition: "fill" | "refund", reason: string): Promise<void> {
  await db
    .update(localBridgeDeposits)
    .set({ disposition, reason })
    .where(and(eq(localBridgeDeposits.id, id), isNull(localBridgeDeposits.disposition)));
}

export const transfersOf = (db: Db, requestIds: readonly string[]): Promise<LocalBridgeTransferRow[]> =>
  requestIds.length === 0
    ? Promise.resolve([])
    : db.select().from(localBridgeTransfers).where(inArray(localBridgeTransfers.requestId, [...requestIds])).orderBy(asc(localBridgeTransfers.createdAt));

/** Plans a transfer before anything is signed; nothing when one of that kind for the deposit is already live (the unique index decides). */
export async function planTransfer(db: Db, values: typeof localBridgeTransfers.$inferInsert): Promise<void> {
  await db.insert(localBridgeTransfers).values(values).onConflictDoNothing();
}

export async function updateTransfer(db: Db, id: string, values: Partial<typeof localBridgeTransfers.$inferInsert>): Promise<void> {
  await db.update(localBridgeTransfers).set({ ...values, updatedAt: sql`now()` }).where(eq(localBridgeTransfers.id, id));
}

/**
 * Records a planned transfer's signed bytes, if it is still planned: of two relayers signing
 * it at once (one that lost its lock), only the one whose record lands may broadcast.
 */
export async function markSigned(db: Db, id: string, values: { fromAddress: string; nonce: number; rawTx: string; txHash: string }): Promise<boolean> {
  // A fill is signed only while no refund was asked for (`withdrawFill` then returns its deposit).
  const noRefundAsked = sql`(${localBridgeTransfers.kind} <> 'fill' or not exists (select 1 from ${localBridgeRequests} r where r.id = ${localBridgeTransfers.requestId} and r.refund_requested))`;
  const rows = await db
    .update(localBridgeTransfers)
    .set({ ...values, status: "signed", updatedAt: sql`now()` })
    .where(and(eq(localBridgeTransfers.id, id), eq(localBridgeTransfers.status, "planned"), noRefundAsked))
    .returning({ id: localBridgeTransfers.id });
  return rows.length > 0;
}

/**
 * A fill planned but not signed when the quoting party asked for a refund (the merchant
 * closed the payment): it is never sent; its deposit is returned instead and the request
 * refunds. Judged against a request read before the ask, a deposit can be planned a fill
 * that must not go out. Returns whether it was withdrawn (still planned).
 */
export async function withdrawFill(db: Db, fill: Pick<LocalBridgeTransferRow, "id" | "requestId" | "depositId">): Promise<boolean> {
  return db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    const [withdrawn] = await tx
      .update(localBridgeTransfers)
      .set({ status: "failed", error: "a refund was requested before the fill was signed", updatedAt: sql`now()` })
      .where(and(eq(localBridgeTransfers.id, fill.id), eq(localBridgeTransfers.status, "planned")))
      .returning({ id: localBridgeTransfers.id });
    if (!withdrawn) return false;
    await tx.update(localBridgeDeposits).set({ disposition: "refund", reason: "a refund was requested before the fill was sent" }).where(eq(localBridgeDeposits.id, fill.depositId));
    await tx
      .update(localBridgeRequests)
      .set({ state: "refunding", updatedAt: sql`now()` })
      .where(and(eq(localBridgeRequests.id, fill.requestId), eq(localBridgeRequests.state, "filling")));
    return true;
  });
}

export const unfinishedTransfers = (db: Db): Promise<LocalBridgeTransferRow[]> =>
  db.select().from(localBridgeTransfers).where(inArray(localBridgeTransfers.status, ["planned", "signed"])).orderBy(asc(localBridgeTransfers.createdAt));

/** The highest nonce the relayer recorded on a chain, or null. */
export async function lastNonce(db: Db, chainId: string, from: string): Promise<number | null> {
  const [row] = await queryRows<{ nonce: number | null }>(
    db,
    sql`select max(nonce) as nonce from local_bridge_transfers where chain_id = ${chainId} and lower(from_address) = lower(${from})`,
  );
  return row?.nonce ?? null;
}

/**
 * The relayer's books, in the origin tokens' smallest units (USD stablecoins, summed 1:1 per
 * unit of each token's own decimals): what came in, and where it went. They balance when
 * `depositsIn = fillValue + fees + refunded + held`, `held` being deposits not yet filled
 * or refunded.
 */
export async function readBooks(db: Db): Promise<{ depositsIn: bigint; fillValue: bigint; fees: bigint; refunded: bigint; collected: bigint; filledOut: bigint; held: bigint }> {
  const [row] = await queryRows<Record<string, string>>(
    db,
    sql`with fills as (
          select d.id, r.amount_to_send, r.fee, r.amount from local_bridge_deposits d
          join local_bridge_requests r on r.id = d.request_id
          join local_bridge_transfers t on t.deposit_id = d.id and t.kind = 'fill' and t.status = 'confirmed')
        select
          (select coalesce(sum(amount), 0)::text from local_bridge_deposits) as deposits_in,
          (select coalesce(sum(amount_to_send - fee), 0)::text from fills) as fill_value,
          (select coalesce(sum(fee), 0)::text from fills) as fees,
          (select coalesce(sum(amount), 0)::text from fills) as filled_out,
          (select coalesce(sum(amount), 0)::text from local_bridge_transfers where kind = 'refund' and status = 'confirmed') as refunded,
          (select coalesce(sum(amount), 0)::text from local_bridge_transfers where kind = 'collect' and status = 'confirmed') as collected,
          (select coalesce(sum(d.amount), 0)::text from local_bridge_deposits d where not exists (
             select 1 from local_bridge_transfers t where t.deposit_id = d.id and t.status = 'confirmed' and t.kind in ('fill', 'refund'))) as held`,
  );
  const n = (key: string) => BigInt(row?.[key] ?? "0");
  return {
    depositsIn: n("deposits_in"),
    fillValue: n("fill_value"),
    fees: n("fees"),
    refunded: n("refunded"),
    collected: n("collected"),
    filledOut: n("filled_out"),
    held: n("held"),
  };
}

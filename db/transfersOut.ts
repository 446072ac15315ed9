import { and, eq, inArray, sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";
import { transfersOut, type TransferOutRow } from "./schema/index.ts";

export type { TransferOutRow };
export type TransferOutKind = TransferOutRow["kind"];

export async function findTransferOut(db: Db, id: string): Promise<TransferOutRow | undefined> {
  const [row] = await db.select().from(transfersOut).where(eq(transfersOut.id, id));
  return row;
}

export const transfersOutOf = (db: Db, paymentId: string) =>
  db.select().from(transfersOut).where(eq(transfersOut.paymentId, paymentId)).orderBy(transfersOut.createdAt);

/** The sweep or refund in flight for a payment (at most one, by a unique index). */
export async function openTransferOut(db: Db, paymentId: string): Promise<TransferOutRow | undefined> {
  const [row] = await db
    .select()
    .from(transfersOut)
    .where(and(eq(transfersOut.paymentId, paymentId), inArray(transfersOut.status, ["requested", "broadcast"])));
  return row;
}

/** Smallest units of the payment's token moved out of its deposit address, or on their way, per kind (native coin is not counted). */
export async function movedOut(db: Db, paymentId: string): Promise<{ sweep: bigint; refund: bigint }> {
  const rows = await queryRows<{ kind: "sweep" | "refund"; total: string }>(
    db,
    sql`select kind, sum(amount)::text as total from transfers_out
        where payment_id = ${paymentId} and status in ('requested', 'broadcast', 'confirmed') group by kind`,
  );
  const total = (kind: string) => BigInt(rows.find((r) => r.kind === kind)?.total ?? "0");
  return { sweep: total("sweep"), refund: total("refund") };
}

/**
 * Records a sweep or refund before anything is sent. Returns undefined when another
 * one is already in flight for the payment (the unique index decides, not a race).
 */
export async function insertTransferOut(db: Db, values: typeof transfersOut.$inferInsert): Promise<TransferOutRow | undefined> {
  const [row] = await db.insert(transfersOut).values(values).onConflictDoNothing().returning();
  return row;
}

export async function updateTransferOut(db: Db, id: string, values: Partial<typeof transfersOut.$inferInsert>): Promise<void> {
  await db.update(transfersOut).set({ ...values, updatedAt: sql`now()` }).where(eq(transfersOut.id, id));
}

/**
 * Records a replacement of a row's transaction (same nonce, higher fees) before it is
 * sent, if the row still has `previousHash` in flight: of two concurrent replacers only
 * one wins, so every transaction that may be mined stays on the row.
 */
export async function replaceTransferOutTx(
  db: Db,
  id: string,
  previousHash: string,
  next: { rawTx: string; txHash: string; blockhash?: string; lastValidBlockHeight?: bigint; sourceBalance?: bigint },
  /** `confirmed`: a confirmed transaction a reorg removed, re-signed while its row cannot reopen (see `reopenTransferOut`). */
  status: "broadcast" | "confirmed" = "broadcast",
): Promise<TransferOutRow | undefined> {
  const [row] = await db
    .update(transfersOut)
    .set({ ...next, replacedTxHashes: sql`array_append(${transfersOut.replacedTxHashes}, ${previousHash})`, updatedAt: sql`now()` })
    .where(and(eq(transfersOut.id, id), eq(transfersOut.status, status), eq(transfersOut.txHash, previousHash)))
    .returning();
  return row;
}

/**
 * Records the signed transaction of a `requested` row and marks it `broadcast`, only if
 * it is still `requested`: of two runs signing the same row, one records and sends, the
 * other finds the row taken. Returns the row if this call took it.
 */
export async function claimTransferOutBroadcast(
  db: Db,
  id: string,
  values: { rawTx: string; txHash: string; fromAddress: string; blockhash?: string; lastValidBlockHeight?: bigint; nonce?: number; sourceBalance?: bigint },
): Promise<TransferOutRow | undefined> {
  const [row] = await db
    .update(transfersOut)
    .set({ ...values, status: "broadcast", error: null, broadcastAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(transfersOut.id, id), eq(transfersOut.status, "requested")))
    .returning();
  return row;
}

/** The highest nonce this operator address was recorded signing with on a chain (null: none). */
export async function lastRecordedNonce(db: Db, chainId: string, fromAddress: string): Promise<number | null> {
  const [row] = await queryRows<{ nonce: number | null }>(
    db,
    sql`select max(nonce) as nonce from transfers_out where chain_id = ${chainId} and from_address = ${fromAddress} and nonce is not null`,
  );
  return row?.nonce ?? null;
}

/** How many of a payment's sweeps or refunds were mined and reverted within the last `withinHours`. */
export async function recentlyReverted(db: Db, paymentId: string, kind: TransferOutKind, withinHours: number): Promise<number> {
  // A failed row with a block number is one the chain mined and reverted (other failures never reached a block).
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from transfers_out
        where payment_id = ${paymentId} and kind = ${kind} and status = 'failed' and block_number is not null
          and updated_at > now() - make_interval(hours => ${withinHours})`,
  );
  return row?.n ?? 0;
}

/**
 * Since when an unfinished row has been waiting: a sent one since it was first sent (its
 * replacements, every `TRANSFER_REPLACE_AFTER`, do not make it younger); a requested one since
 * its last change (a refund waits for its credits' finality before it is signed).
 */
export const OUT_SINCE = sql.raw(`coalesce(case when status = 'broadcast' then broadcast_at end, updated_at)`);

/** Per chain: sweeps and refunds not yet final, and how long the oldest has been waiting (seconds). */
export async function transfersInFlight(db: Db): Promise<Map<string, { inFlight: number; oldestSeconds: number }>> {
  const rows = await queryRows<{ chain_id: string; n: number; oldest: number }>(
    db,
    sql`select chain_id, count(*)::int as n, floor(extract(epoch from now() - min(${OUT_SINCE})))::int as oldest
        from transfers_out where status in ('requested', 'broadcast') group by chain_id`,
  );
  return new Map(rows.map((r) => [r.chain_id, { inFlight: r.n, oldestSeconds: r.oldest }]));
}

/** Rows a crash may have left half done, for the periodic re-drive. */
export async function unfinishedTransfersOut(db: Db): Promise<TransferOutRow[]> {
  return db.select().from(transfersOut).where(inArray(transfersOut.status, ["requested", "broadcast"]));
}

/**
 * Payments completed through their deposit address whose sweep has not been recorded as done:
 * only those not marked swept are read (a partial index), not every completed payment ever made.
 */
export async function paymentsToSweep(db: Db): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(db, sql`
    select p.id from payments p
    where p.status = 'completed' and p.completed_via = 'transfer' and p.swept_at is null
      and p.amount > coalesce((select sum(t.amount) from transfers_out t
                               where t.payment_id = p.id and t.kind = 'sweep' and t.status in ('requested', 'broadcast', 'confirmed')), 0)`);
  return rows.map((r) => r.id);
}

/**
 * Sweeps and refunds recorded as confirmed in blocks that are not final yet (above
 * `finalized` per chain): a reorg may still have removed them; and those a reorg did remove
 * while another transfer of their payment was open (in no block until found again).
 */
export async function confirmedTransfersAbove(db: Db, finality: Array<{ chainId: string; finalized: bigint }>): Promise<TransferOutRow[]> {
  if (finality.length === 0) return [];
  const rows = await queryRows<{ id: string }>(db, sql`
    select t.id from transfers_out t
    join unnest(${sql.param(finality.map((f) => f.chainId))}::text[], ${sql.param(finality.map((f) => f.finalized.toString()))}::numeric[]) as f(chain_id, finalized)
      on f.chain_id = t.chain_id
    where t.status = 'confirmed' and t.block_number > f.finalized
    union
    select t.id from transfers_out t
    where t.status = 'confirmed' and t.block_number is null and t.chain_id = any(${sql.param(finality.map((f) => f.chainId))}::text[])`);
  if (rows.length === 0) return [];
  return db.select().from(transfersOut).where(inArray(transfersOut.id, rows.map((r) => r.id)));
}

/** Records the block and transaction a confirmed transfer now sits in (a reorg may have moved it, or mined a re-signed one). */
export async function moveConfirmedTransfer(db: Db, id: string, mined: { blockNumber: bigint; txHash: string }): Promise<void> {
  await db
    .update(transfersOut)
    .set({
      blockNumber: mined.blockNumber,
      txHash: mined.txHash,
      // The one mined may be one the row's current transaction was meant to replace: every hash stays on the row.
      replacedTxHashes: sql`case when ${transfersOut.txHash} = ${mined.txHash} then ${transfersOut.replacedTxHashes}
        else array_append(array_remove(${transfersOut.replacedTxHashes}, ${mined.txHash}), ${transfersOut.txHash}) end`,
      error: null,
      updatedAt: sql`now()`,
    })
    .where(and(eq(transfersOut.id, id), eq(transfersOut.status, "confirmed")));
}

/**
 * Of these payments, those whose deposit address was swept (a confirmed sweep): a sweep goes
 * out only once the completing block is final, so their completion no reorg can take back.
 */
export async function sweptPayments(db: Db, paymentIds: readonly string[]): Promise<Set<string>> {
  if (paymentIds.length === 0) return new Set();
  const rows = await queryRows<{ payment_id: string }>(
    db,
    sql`select distinct payment_id from transfers_out where kind = 'sweep' and status = 'confirmed' and payment_id = any(${sql.param([...paymentIds])}::uuid[])`,
  );
  return new Set(rows.map((r) => r.payment_id));
}

/** Sweeps and refunds of a chain out and not yet final (signed and sent), other than `except`. */
export async function broadcastOnChain(db: Db, chainId: string, except: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`
    select count(*)::int as n from transfers_out where chain_id = ${chainId} and status = 'broadcast' and id <> ${except}`);
  return row?.n ?? 0;
}

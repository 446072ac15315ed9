import { and, eq, inArray, sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";
import { transfersOut, type TransferOutRow } from "./schema/index.ts";
import { lockPayment, type PaymentRow } from "./payments.ts";
import { recordPaymentEvent } from "./paymentEvents.ts";

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

/** Smallest units moved out of a payment's deposit address, or on their way, per kind. */
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
 * Closes an in-flight row as failed, only from the status the caller saw: a concurrent
 * run that confirmed it meanwhile is never overwritten.
 */
export async function failTransferOut(
  db: Db,
  id: string,
  from: "requested" | "broadcast",
  values: { error: string; blockNumber?: bigint },
): Promise<void> {
  await db
    .update(transfersOut)
    .set({ ...values, status: "failed", updatedAt: sql`now()` })
    .where(and(eq(transfersOut.id, id), eq(transfersOut.status, from)));
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
  next: { rawTx: string; txHash: string; blockhash?: string; lastValidBlockHeight?: bigint },
): Promise<TransferOutRow | undefined> {
  const [row] = await db
    .update(transfersOut)
    .set({ ...next, replacedTxHashes: sql`array_append(${transfersOut.replacedTxHashes}, ${previousHash})`, updatedAt: sql`now()` })
    .where(and(eq(transfersOut.id, id), eq(transfersOut.status, "broadcast"), eq(transfersOut.txHash, previousHash)))
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
  values: { rawTx: string; txHash: string; fromAddress: string; blockhash?: string; lastValidBlockHeight?: bigint; nonce?: number },
): Promise<TransferOutRow | undefined> {
  const [row] = await db
    .update(transfersOut)
    .set({ ...values, status: "broadcast", updatedAt: sql`now()` })
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

/** Per chain: sweeps and refunds not yet final, and how long the oldest has been waiting (seconds). */
export async function transfersInFlight(db: Db): Promise<Map<string, { inFlight: number; oldestSeconds: number }>> {
  const rows = await queryRows<{ chain_id: string; n: number; oldest: number }>(
    db,
    sql`select chain_id, count(*)::int as n, floor(extract(epoch from now() - min(updated_at)))::int as oldest
        from transfers_out where status in ('requested', 'broadcast') group by chain_id`,
  );
  return new Map(rows.map((r) => [r.chain_id, { inFlight: r.n, oldestSeconds: r.oldest }]));
}

/** Rows a crash may have left half done, for the periodic re-drive. */
export async function unfinishedTransfersOut(db: Db): Promise<TransferOutRow[]> {
  return db.select().from(transfersOut).where(inArray(transfersOut.status, ["requested", "broadcast"]));
}

/**
 * Decides and records a sweep or refund under the payment's row lock: concurrent
 * callers queue on the lock and each sees what the previous one reserved, so the
 * amounts moved out can never exceed what is owed. `decide` returns the row to insert
 * (or null for nothing to do); undefined comes back when nothing was reserved.
 */
export async function reserveTransferOut(
  db: Db,
  paymentId: string,
  decide: (payment: PaymentRow, moved: { sweep: bigint; refund: bigint }) => Omit<typeof transfersOut.$inferInsert, "paymentId"> | null,
): Promise<TransferOutRow | undefined> {
  return db.transaction(async (txRaw) => {
    const tx = txRaw as unknown as Db;
    const payment = await lockPayment(tx, paymentId);
    if (!payment) return undefined;
    const values = decide(payment, await movedOut(tx, paymentId));
    if (!values) return undefined;
    return insertTransferOut(tx, { ...values, paymentId });
  });
}

/**
 * Closes a sweep or refund as confirmed and, in the same transaction and only on that
 * transition, records the payment's `forwarded` or `refunded` event (the outbox then
 * delivers it). Running it twice records one event.
 */
export async function confirmTransferOut(db: Db, id: string, mined: { blockNumber: bigint; txHash: string }): Promise<void> {
  await db.transaction(async (txRaw) => {
    const tx = txRaw as unknown as Db;
    // The mined transaction is the one recorded (it may be one a replacement was meant to supersede).
    const [row] = await tx
      .update(transfersOut)
      .set({ status: "confirmed", blockNumber: mined.blockNumber, txHash: mined.txHash, error: null, updatedAt: sql`now()` })
      .where(and(eq(transfersOut.id, id), inArray(transfersOut.status, ["requested", "broadcast"])))
      .returning();
    if (!row) return;
    const payment = await lockPayment(tx, row.paymentId);
    await recordPaymentEvent(tx, payment!, row.kind === "sweep" ? "payment.forwarded" : "payment.refunded", {
      transfer: { id: row.id, amount: row.amount, to: row.toAddress, transactionHash: row.txHash, blockNumber: row.blockNumber },
    });
  });
}

/** Payments completed through their deposit address whose sweep has not been recorded as done. */
export async function paymentsToSweep(db: Db): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(db, sql`
    select p.id from payments p
    where p.status = 'completed' and p.completed_via = 'transfer'
      and p.amount > coalesce((select sum(t.amount) from transfers_out t
                               where t.payment_id = p.id and t.kind = 'sweep' and t.status in ('requested', 'broadcast', 'confirmed')), 0)`);
  return rows.map((r) => r.id);
}

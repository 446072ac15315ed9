import { and, eq, inArray, sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";
import { transfersOut, type TransferOutRow } from "./schema/index.ts";
import { lockPayment, type PaymentRow } from "./payments.ts";
import { announcePaymentChanges } from "./paymentChanges.ts";
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
 * Closes an in-flight row as failed, only from the status the caller saw: a concurrent
 * run that confirmed it meanwhile is never overwritten.
 */
export async function failTransferOut(
  db: Db,
  id: string,
  from: "requested" | "broadcast" | "confirmed",
  values: { error: string; blockNumber?: bigint },
  /** Only while the row's transaction is still this one: a run that judged an older one must not close a row another run replaced meanwhile. */
  guard: { txHash?: string } = {},
): Promise<void> {
  await db.transaction(async (txRaw) => {
    const tx = txRaw as unknown as Db;
    const [before] = await tx.select().from(transfersOut).where(eq(transfersOut.id, id));
    if (!before) return;
    // The payment first, as reservations and reopening take it (then the transfer row).
    const payment = await lockPayment(tx, before.paymentId);
    const [row] = await tx
      .update(transfersOut)
      .set({ ...values, status: "failed", updatedAt: sql`now()` })
      .where(and(eq(transfersOut.id, id), eq(transfersOut.status, from), guard.txHash === undefined ? undefined : eq(transfersOut.txHash, guard.txHash)))
      .returning({ paymentId: transfersOut.paymentId, kind: transfersOut.kind });
    // A failed refund is owed again: the checkout page offers it anew.
    if (row?.kind === "refund") await announcePaymentChanges(tx, [row.paymentId]);
    // A confirmed sweep a reorg undid: the payment is owed a sweep again.
    if (row?.kind === "sweep" && from === "confirmed") await clearSwept(tx, row.paymentId);
    // Native coin is not the payment's money: no payment event tells of it.
    if (!row || row.kind === "native_sweep") return;
    // One the merchant was told of (`payment.forwarded` / `payment.refunded`) and a reorg then
    // undid (reverted when mined again, or reopened and never mined): told too, with the same
    // transfer, so its books do not keep money that never moved.
    const told = await queryRows<{ one: number }>(tx, sql`
      select 1 as one from payment_events where payment_id = ${row.paymentId} and type = ${row.kind === "sweep" ? "payment.forwarded" : "payment.refunded"}
        and payload->'transfer'->>'id' = ${before.id} limit 1`);
    if (told.length > 0) {
      await recordPaymentEvent(tx, payment!, row.kind === "sweep" ? "payment.forward_reverted" : "payment.refund_reverted", {
        transfer: { id: before.id, amount: before.amount, to: before.toAddress, transactionHash: before.txHash, blockNumber: before.blockNumber, reason: values.error },
      });
    }
  });
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

/**
 * A payment whose sweeps (or refunds) reverted on chain this many times within these hours
 * gets no more of them for now: each try costs the operator gas, and a transfer that
 * reverted (a blacklisted address, a token paused) will most likely revert again.
 */
export const REVERT_LIMIT = { times: 3, withinHours: 24 } as const;

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
 * Decides and records a sweep or refund under the payment's row lock: concurrent
 * callers queue on the lock and each sees what the previous one reserved, so the
 * amounts moved out can never exceed what is owed. `decide` returns the row to insert
 * (or null for nothing to do); undefined comes back when nothing was reserved.
 */
export async function reserveTransferOut(
  db: Db,
  paymentId: string,
  decide: (payment: PaymentRow, moved: { sweep: bigint; refund: bigint }) => Omit<typeof transfersOut.$inferInsert, "paymentId"> | null,
  /** Runs in the same transaction, under the same lock, once a row is reserved (what records the refund's request); throwing undoes the reservation. */
  reserved?: (tx: Db, payment: PaymentRow, row: TransferOutRow) => Promise<void>,
): Promise<TransferOutRow | undefined> {
  return db.transaction(async (txRaw) => {
    const tx = txRaw as unknown as Db;
    const payment = await lockPayment(tx, paymentId);
    if (!payment) return undefined;
    const values = decide(payment, await movedOut(tx, paymentId));
    if (!values) return undefined;
    const row = await insertTransferOut(tx, { ...values, paymentId });
    // A refund reserved changes what the checkout page says is owed back.
    if (row?.kind === "refund") await announcePaymentChanges(tx, [paymentId]);
    if (row && reserved) await reserved(tx, payment, row);
    return row;
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
    // The mined transaction is the one recorded (it may be one a replacement was meant to
    // supersede); the one it takes the place of joins the replaced ones, so a reorg that
    // swaps which of them is mined still finds it on the row.
    const [row] = await tx
      .update(transfersOut)
      .set({
        status: "confirmed",
        blockNumber: mined.blockNumber,
        txHash: mined.txHash,
        replacedTxHashes: sql`case when ${transfersOut.txHash} is null or ${transfersOut.txHash} = ${mined.txHash} then ${transfersOut.replacedTxHashes}
          else array_append(array_remove(${transfersOut.replacedTxHashes}, ${mined.txHash}), ${transfersOut.txHash}) end`,
        error: null,
        updatedAt: sql`now()`,
      })
      .where(and(eq(transfersOut.id, id), inArray(transfersOut.status, ["requested", "broadcast"])))
      .returning();
    // Native coin is not the payment's money: no payment event tells of it.
    if (!row || row.kind === "native_sweep") return;
    const payment = await lockPayment(tx, row.paymentId);
    if (row.kind === "sweep") await markSwept(tx, row.paymentId);
    const type = row.kind === "sweep" ? "payment.forwarded" : "payment.refunded";
    // Confirmed again after a reorg took its block away: the merchant was told once already.
    const [told] = await queryRows<{ one: number }>(tx, sql`
      select 1 as one from payment_events where payment_id = ${row.paymentId} and type = ${type} and payload->'transfer'->>'id' = ${row.id} limit 1`);
    await Promise.all([
      told
        ? undefined
        : recordPaymentEvent(tx, payment!, type, {
            transfer: { id: row.id, amount: row.amount, to: row.toAddress, transactionHash: row.txHash, blockNumber: row.blockNumber },
          }),
      // A refund sent changes what the checkout page shows; a sweep does not.
      row.kind === "refund" ? announcePaymentChanges(tx, [row.paymentId]) : undefined,
    ]);
  });
}

/** Marks a payment swept once its confirmed sweeps reach its amount (`paymentsToSweep` then skips it, by index). */
async function markSwept(tx: Db, paymentId: string): Promise<void> {
  await tx.execute(sql`
    update payments set swept_at = now() where id = ${paymentId} and swept_at is null
      and amount <= (select coalesce(sum(amount), 0) from transfers_out where payment_id = ${paymentId} and kind = 'sweep' and status = 'confirmed')`);
}

/** A confirmed sweep left `confirmed` (a reorg): the payment is owed again, so `paymentsToSweep` reads it again. */
async function clearSwept(tx: Db, paymentId: string): Promise<void> {
  await tx.execute(sql`update payments set swept_at = null where id = ${paymentId} and swept_at is not null`);
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

/**
 * A confirmed sweep or refund whose transaction a reorg removed goes back to `broadcast`:
 * the usual path then sends its very same signed transaction again (same nonce and hash,
 * so it can be mined once). Only from `confirmed`, and only while no other transfer of the
 * payment is open (one at a time, under the payment's lock as reservations are): `blocked`
 * when one is — reserved after this one confirmed — and the caller re-sends the bytes itself.
 */
export async function reopenTransferOut(db: Db, id: string, reason: string): Promise<"reopened" | "blocked" | null> {
  return db.transaction(async (txRaw) => {
    const tx = txRaw as unknown as Db;
    const [row] = await tx.select({ paymentId: transfersOut.paymentId, status: transfersOut.status }).from(transfersOut).where(eq(transfersOut.id, id));
    if (row?.status !== "confirmed") return null;
    await lockPayment(tx, row.paymentId);
    const [open] = await tx
      .select({ id: transfersOut.id })
      .from(transfersOut)
      .where(and(eq(transfersOut.paymentId, row.paymentId), inArray(transfersOut.status, ["requested", "broadcast"])))
      .limit(1);
    if (open) {
      // The row stays confirmed, in no block (so the recheck keeps looking at it however final its
      // old block becomes); its note and clock say since when its transaction is missing (how
      // long the same bytes are sent again before they may be re-signed).
      await tx
        .update(transfersOut)
        .set({ error: reason, blockNumber: null, updatedAt: sql`now()` })
        .where(and(eq(transfersOut.id, id), sql`${transfersOut.error} is distinct from ${reason}`));
      return "blocked";
    }
    const rows = await tx
      .update(transfersOut)
      .set({ status: "broadcast", blockNumber: null, error: reason, broadcastAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(eq(transfersOut.id, id), eq(transfersOut.status, "confirmed")))
      .returning({ id: transfersOut.id, kind: transfersOut.kind });
    if (rows[0]?.kind === "sweep") await clearSwept(tx, row.paymentId);
    return rows.length > 0 ? "reopened" : null;
  });
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

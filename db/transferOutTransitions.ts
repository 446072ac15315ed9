import { and, eq, inArray, sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";
import { transfersOut, type TransferOutRow } from "./schema/index.ts";

/**
 * The guarded writes of the transfer-out state machine (`payouts/transferLedger.ts` decides
 * when each is made, with which events): each moves a row only from the status the caller
 * saw, so of two concurrent runs one moves it and the other finds it moved. All take the
 * caller's transaction.
 */

/** Closes a row as failed, only from `from` (and, with `txHash`, only while that is still its transaction); the row if it moved. */
export async function closeTransferOutFailed(
  tx: Db,
  id: string,
  from: TransferOutRow["status"],
  values: { error: string; blockNumber?: bigint },
  txHash?: string,
): Promise<Pick<TransferOutRow, "paymentId" | "kind"> | undefined> {
  const [row] = await tx
    .update(transfersOut)
    .set({ ...values, status: "failed", updatedAt: sql`now()` })
    .where(and(eq(transfersOut.id, id), eq(transfersOut.status, from), txHash === undefined ? undefined : eq(transfersOut.txHash, txHash)))
    .returning({ paymentId: transfersOut.paymentId, kind: transfersOut.kind });
  return row;
}

/**
 * Closes an in-flight row as confirmed in `mined`'s block; the row if it moved. The mined
 * transaction is the one recorded (it may be one a replacement was meant to supersede); the
 * one it takes the place of joins the replaced ones, so a reorg that swaps which of them is
 * mined still finds it on the row.
 */
export async function closeTransferOutConfirmed(tx: Db, id: string, mined: { blockNumber: bigint; txHash: string }): Promise<TransferOutRow | undefined> {
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
  return row;
}

/** A confirmed row back to `broadcast`, in no block, its note `reason` (only from `confirmed`); the row if it moved. */
export async function reopenConfirmedTransferOut(tx: Db, id: string, reason: string): Promise<Pick<TransferOutRow, "id" | "kind"> | undefined> {
  const [row] = await tx
    .update(transfersOut)
    .set({ status: "broadcast", blockNumber: null, error: reason, broadcastAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(transfersOut.id, id), eq(transfersOut.status, "confirmed")))
    .returning({ id: transfersOut.id, kind: transfersOut.kind });
  return row;
}

/**
 * A confirmed row whose transaction is missing stays confirmed, in no block; its note and
 * clock say since when (written once per reason, so the clock is not reset on every look).
 */
export async function noteConfirmedTransferMissing(tx: Db, id: string, reason: string): Promise<void> {
  await tx
    .update(transfersOut)
    .set({ error: reason, blockNumber: null, updatedAt: sql`now()` })
    .where(and(eq(transfersOut.id, id), sql`${transfersOut.error} is distinct from ${reason}`));
}

/** Marks a payment swept once its confirmed sweeps reach its amount (`paymentsToSweep` then skips it, by index). */
export async function markSwept(tx: Db, paymentId: string): Promise<void> {
  await tx.execute(sql`
    update payments set swept_at = now() where id = ${paymentId} and swept_at is null
      and amount <= (select coalesce(sum(amount), 0) from transfers_out where payment_id = ${paymentId} and kind = 'sweep' and status = 'confirmed')`);
}

/** A payment owed a sweep again (a confirmed one a reorg undid): `paymentsToSweep` reads it again. */
export async function clearSwept(tx: Db, paymentId: string): Promise<void> {
  await tx.execute(sql`update payments set swept_at = null where id = ${paymentId} and swept_at is not null`);
}

/** Whether the payment has an event of `type` telling of this transfer (`payment.forwarded`, `payment.refunded`). */
export async function transferEventWritten(tx: Db, paymentId: string, type: string, transferId: string): Promise<boolean> {
  const rows = await queryRows<{ one: number }>(tx, sql`
    select 1 as one from payment_events where payment_id = ${paymentId} and type = ${type} and payload->'transfer'->>'id' = ${transferId} limit 1`);
  return rows.length > 0;
}

import type { Db } from "../db/client.ts";
import { announcePaymentChanges } from "../db/paymentChanges.ts";
import { recordPaymentEvent } from "../db/paymentEvents.ts";
import { lockPayment } from "../db/payments.ts";
import {
  clearSwept,
  closeTransferOutConfirmed,
  closeTransferOutFailed,
  markSwept,
  noteConfirmedTransferMissing,
  reopenConfirmedTransferOut,
  transferEventWritten,
} from "../db/transferOutTransitions.ts";
import { findTransferOut, openTransferOut, type TransferOutRow } from "../db/transfersOut.ts";
import type { TransferLedger } from "../rails/transferLedger.ts";

/** The event telling the merchant a transfer of this kind went out (native coin is not the payment's money: none). */
const sentEvent = (kind: TransferOutRow["kind"]) => (kind === "sweep" ? "payment.forwarded" : "payment.refunded");

const inTransaction = <T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> => db.transaction((raw) => work(raw as unknown as Db));

/**
 * Closes a sweep or refund as confirmed and, in the same transaction and only on that
 * transition, records the payment's `forwarded` or `refunded` event (the outbox then
 * delivers it). Running it twice records one event.
 */
export async function confirmTransferOut(db: Db, id: string, mined: { blockNumber: bigint; txHash: string }): Promise<void> {
  await inTransaction(db, async (tx) => {
    const row = await closeTransferOutConfirmed(tx, id, mined);
    if (!row || row.kind === "native_sweep") return;
    const payment = await lockPayment(tx, row.paymentId);
    if (row.kind === "sweep") await markSwept(tx, row.paymentId);
    const type = sentEvent(row.kind);
    // Confirmed again after a reorg took its block away: the merchant was told once already.
    const told = await transferEventWritten(tx, row.paymentId, type, row.id);
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

/**
 * Closes an in-flight row as failed, only from the status the caller saw: a concurrent
 * run that confirmed it meanwhile is never overwritten. A failed refund is owed again; a
 * confirmed sweep a reorg undid is owed again; one the merchant was told of gets its
 * `*_reverted` event.
 */
export async function failTransferOut(
  db: Db,
  id: string,
  from: "requested" | "broadcast" | "confirmed",
  values: { error: string; blockNumber?: bigint },
  /** Only while the row's transaction is still this one: a run that judged an older one must not close a row another run replaced meanwhile. */
  guard: { txHash?: string } = {},
): Promise<void> {
  await inTransaction(db, async (tx) => {
    const before = await findTransferOut(tx, id);
    if (!before) return;
    // The payment first, as reservations and reopening take it (then the transfer row).
    const payment = await lockPayment(tx, before.paymentId);
    const row = await closeTransferOutFailed(tx, id, from, values, guard.txHash);
    // A failed refund is owed again: the checkout page offers it anew.
    if (row?.kind === "refund") await announcePaymentChanges(tx, [row.paymentId]);
    // A confirmed sweep a reorg undid: the payment is owed a sweep again.
    if (row?.kind === "sweep" && from === "confirmed") await clearSwept(tx, row.paymentId);
    if (!row || row.kind === "native_sweep") return;
    // One the merchant was told of (`payment.forwarded` / `payment.refunded`) and a reorg then
    // undid (reverted when mined again, or reopened and never mined): told too, with the same
    // transfer, so its books do not keep money that never moved.
    if (await transferEventWritten(tx, row.paymentId, sentEvent(row.kind), before.id)) {
      await recordPaymentEvent(tx, payment!, row.kind === "sweep" ? "payment.forward_reverted" : "payment.refund_reverted", {
        transfer: { id: before.id, amount: before.amount, to: before.toAddress, transactionHash: before.txHash, blockNumber: before.blockNumber, reason: values.error },
      });
    }
  });
}

/**
 * A confirmed sweep or refund whose transaction a reorg removed goes back to `broadcast`:
 * the usual path then sends its very same signed transaction again (same nonce and hash,
 * so it can be mined once). Only from `confirmed`, and only while no other transfer of the
 * payment is open (one at a time, under the payment's lock as reservations are): `blocked`
 * when one is — reserved after this one confirmed — and the caller re-sends the bytes itself.
 */
export async function reopenTransferOut(db: Db, id: string, reason: string): Promise<"reopened" | "blocked" | null> {
  return inTransaction(db, async (tx) => {
    const row = await findTransferOut(tx, id);
    if (row?.status !== "confirmed") return null;
    await lockPayment(tx, row.paymentId);
    if (await openTransferOut(tx, row.paymentId)) {
      // The row stays confirmed, in no block (so the recheck keeps looking at it however final its
      // old block becomes); its note and clock say since when its transaction is missing (how
      // long the same bytes are sent again before they may be re-signed).
      await noteConfirmedTransferMissing(tx, id, reason);
      return "blocked";
    }
    const reopened = await reopenConfirmedTransferOut(tx, id, reason);
    if (reopened?.kind === "sweep") await clearSwept(tx, row.paymentId);
    return reopened ? "reopened" : null;
  });
}

/** The state machine as the chains' money-out steps report to it. */
export const transferLedger: TransferLedger = { confirm: confirmTransferOut, fail: failTransferOut, reopen: reopenTransferOut };

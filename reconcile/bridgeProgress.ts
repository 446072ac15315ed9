import type { Config } from "../config/index.ts";
import { bridgeFillsOf, claimBridgeFill, lockBridgeRequest, updateBridgeRequest } from "../db/bridgeRequests.ts";
import { bridgeSnapshot } from "../db/bridgeSnapshot.ts";
import type { Db } from "../db/client.ts";
import { announcePaymentChanges } from "../db/paymentChanges.ts";
import { recordPaymentEvent } from "../db/paymentEvents.ts";
import { lockPayment, setBridgeStatus } from "../db/payments.ts";
import { bridgeReadChanged, bridgeReadFields, bridgeWatch, type BridgeProgressUpdate } from "../domain/bridgeRead.ts";
import { observeCommitted, reconcileWithin, type Reconciled } from "./reconcilePayments.ts";

export type RecordedBridgeProgress = {
  /** Something a merchant sees changed (and a `bridge.updated` event was written). */
  changed: boolean;
  /** Nothing more can happen (`bridgeWatch`): the request's watch ends. */
  finished: boolean;
  /** The merchant's side is settled — filled, or the bridge failed — and only a refund may still show: read it less often. */
  settled: boolean;
  /** The payment ended `failed` with this read (the bridge refunded or failed, none of the money arrived: `settle` said so). */
  closed: boolean;
  /** A read that began later was recorded already: this one was not, and its job leaves the watch to that read's. */
  stale: boolean;
  /** Carrying the money with nothing changed for BRIDGE_STUCK_MS: read it less often. */
  stuck: boolean;
};

/**
 * Records a read of a payment's bridge in one transaction holding the payment's and the
 * request's row locks: claims the fill logs (up to the amount owed; a log another payment
 * claimed is never counted twice), updates the request and the payment's `bridgeStatus`,
 * and writes `bridge.updated` with the change. A changed bridge is evidence: the payment is
 * settled again from it in the same transaction (`reconcileWithin`), so a bridge that refunded
 * or failed before any money arrived ends the payment `failed` through `settle`, with its
 * events, as every other transition does. Reading the same thing twice writes nothing new.
 */
export async function recordBridgeProgress(deps: { db: Db; config: Config }, paymentId: string, seen: BridgeProgressUpdate, now: Date): Promise<RecordedBridgeProgress> {
  let reconciled: Map<string, Reconciled> | undefined;
  const recorded = await deps.db.transaction(async (raw): Promise<RecordedBridgeProgress> => {
    const tx = raw as unknown as Db;
    const payment = await lockPayment(tx, paymentId);
    const request = await lockBridgeRequest(tx, paymentId);
    if (!payment || !request) return { changed: false, finished: true, settled: true, closed: false, stale: false, stuck: false };
    // Two reads of one request can overlap (a webhook's prompt beside the poll): the older one's answer must not replace the newer.
    if (request.checkedAt && request.checkedAt > seen.readAt) return { changed: false, finished: request.finishedAt !== null, settled: false, closed: false, stale: true, stuck: false };

    const { filled, newFills } = await claimFills(tx, payment, seen.fills);
    const next = bridgeReadFields(request, seen, now);
    const changed = newFills > 0 || bridgeReadChanged(request, next);
    const watch = bridgeWatch({ stored: request, next, filled, amount: payment.amount, changed, now });
    await updateBridgeRequest(tx, paymentId, {
      ...next,
      bridgeUpdatedAt: seen.bridgeUpdatedAt ?? request.bridgeUpdatedAt,
      checkedAt: seen.readAt,
      // Who paid is no change a merchant is told of (the deposit amount is): kept beside, a read that could not check every leg only adds to it.
      depositSenders: seen.originUnverified ? [...new Set([...request.depositSenders, ...(seen.depositSenders ?? [])])] : (seen.depositSenders ?? []),
      seenThrough: later(request.seenThrough, seen.seenThrough),
      changedAt: watch.changedAt,
      finishedAt: watch.finished ? (request.finishedAt ?? now) : null,
    });
    const after = await setBridgeStatus(tx, paymentId, seen.bridgeStatus, payment.bridgeStatus !== seen.bridgeStatus ? now : null);

    let closed = false;
    if (changed) {
      const fills = await bridgeFillsOf(tx, [paymentId]);
      const current = { ...request, ...next, bridgeUpdatedAt: seen.bridgeUpdatedAt ?? request.bridgeUpdatedAt };
      await recordPaymentEvent(tx, after, "bridge.updated", { bridge: bridgeSnapshot(current, fills, { decimals: payment.tokenDecimals, currency: payment.tokenSymbol }) });
      reconciled = await reconcileWithin(tx, deps.config, [paymentId]);
      const settled = reconciled.get(paymentId);
      closed = settled !== undefined && settled.before.status !== "failed" && settled.after.status === "failed";
      // The checkout page shows the bridge's progress: wake its stream.
      await announcePaymentChanges(tx, [paymentId]);
    }
    return { changed, finished: watch.finished, settled: watch.settled, closed, stale: false, stuck: watch.stuck };
  });
  if (reconciled) observeCommitted(deps.config, reconciled);
  return recorded;
}

/**
 * Claims this read's fill logs as the payment's credits, up to its amount; returns what is
 * filled (only claims this read found on chain count: one a reorg removed must not stop the
 * solver's new fill from being claimed — the credits re-check receipts too) and how many are new.
 */
async function claimFills(tx: Db, payment: { id: string; amount: bigint }, fills: BridgeProgressUpdate["fills"]): Promise<{ filled: bigint; newFills: number }> {
  const claimed = await bridgeFillsOf(tx, [payment.id]);
  const keyOf = (f: { chainId: string; txHash: string; logIndex: number }) => `${f.chainId}:${f.txHash}:${f.logIndex}`;
  const known = new Set(claimed.map(keyOf));
  const onChain = new Set(fills.map(keyOf));
  let filled = claimed.filter((f) => onChain.has(keyOf(f))).reduce((sum, f) => sum + f.amount, 0n);
  let newFills = 0;
  // A bridge filling several payments in one transaction sends each its own log: the one
  // of exactly what is still owed is this payment's (the bridge fills exact amounts).
  const owed = payment.amount - filled;
  const candidates = [...fills].sort((a, b) => Number(b.amount === owed) - Number(a.amount === owed));
  for (const fill of candidates) {
    if (filled >= payment.amount) break;
    if (known.has(keyOf(fill))) continue;
    if (await claimBridgeFill(tx, { ...fill, paymentId: payment.id })) {
      filled += fill.amount;
      newFills++;
    }
  }
  return { filled, newFills };
}

/** The later of two times, either of which may be unknown (a horizon never moves back). */
const later = (a: Date | null, b: Date | null): Date | null => (a && b ? (a > b ? a : b) : (a ?? b));

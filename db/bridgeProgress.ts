import { eq } from "drizzle-orm";
import { BRIDGE_STUCK_MS, CARRYING, type BridgeProgress, type BridgeStatusValue } from "../domain/bridgeStatus.ts";
import { eventsForTransition } from "../domain/paymentEvents.ts";
import { bridgeFillsOf, claimBridgeFill, lockBridgeRequest, updateBridgeRequest } from "./bridgeRequests.ts";
import { bridgeSnapshot } from "./bridgeSnapshot.ts";
import type { Db } from "./client.ts";
import { announcePaymentChanges } from "./paymentChanges.ts";
import { recordPaymentEvents, type NewPaymentEvent } from "./paymentEvents.ts";
import { lockPayment } from "./payments.ts";
import { payments, type NewBridgeRequest } from "./schema/index.ts";

/** What a read of the bridge found, each leg checked on its chain (rails/bridge `observeBridge`). */
export type BridgeProgressUpdate = {
  progress: BridgeProgress;
  bridgeStatus: BridgeStatusValue;
  originTxHashes: string[];
  destinationTxHashes: string[];
  refundTxHashes: string[];
  /** Verified on the origin chain: what reached the deposit address, and the block time of the first deposit. */
  depositAmount: bigint;
  depositedAt: Date | null;
  /** Verified on the origin chain: what the refund transactions returned. */
  refundedAmount: bigint;
  /** Verified on the origin chain: the addresses the deposits came from (who paid); absent: none verified. */
  depositSenders?: string[];
  /**
   * Some origin transaction the bridge reports could not be checked on this read (its chain
   * is not configured here, or its node has no receipt for it yet): the deposit and refund
   * an earlier read verified stand, and this read's lower figures do not replace them.
   */
  originUnverified: boolean;
  /** Transfer logs of the payment's token to the merchant's wallet, to claim as its credits. */
  fills: Array<{ chainId: string; txHash: string; logIndex: number; amount: bigint; blockNumber: bigint }>;
  failReason: string | null;
  /** A refund's reason, or the bridge's other remarks. */
  details: string | null;
  bridgeUpdatedAt: Date | null;
  /** The service asked the bridge for a refund during this observation. */
  refundRequested: boolean;
  /** When the read began: a read older than the one recorded is not recorded over it. */
  readAt: Date;
  /** Every deposit stamped at or before this time is in `originTxHashes` (the adapter's `seenThrough`). */
  seenThrough: Date | null;
};

export type RecordedBridgeProgress = {
  /** Something a merchant sees changed (and a `bridge.updated` event was written). */
  changed: boolean;
  /**
   * Nothing more can happen: filled (and any excess returned), refunded, never paid long after
   * expiry, or a success or failure nothing has changed in for BRIDGE_QUIET_MS.
   */
  finished: boolean;
  /** The merchant's side is settled — filled, or the bridge failed — and only a refund may still show: read it less often. */
  settled: boolean;
  /** The bridge refunded or failed, so the payment was ended `failed` now. */
  closed: boolean;
  /** A read that began later was recorded already: this one was not, and its job leaves the watch to that read's. */
  stale: boolean;
  /** Carrying the money with nothing changed for BRIDGE_STUCK_MS: read it less often. */
  stuck: boolean;
};

/** A request that was never paid is watched this long past its expiry (a late deposit is the bridge's to return). */
const UNPAID_GRACE_MS = 60 * 60 * 1000;
/**
 * A bridge that has said its last word (`success`, `failure`) is watched this long after
 * the last change a read found. Relay returns the excess of an overpayment less the gas of
 * the refund (none at all when the gas would eat it, or a failure it cannot refund), and
 * without an API key its status never lists the refund: such a request is otherwise read
 * every few seconds for good.
 */
export const BRIDGE_QUIET_MS = 24 * 60 * 60 * 1000;


/**
 * Records a read of a payment's bridge in one transaction holding the payment's and the
 * request's row locks: claims the fill logs (up to the amount owed; a log another payment
 * claimed is never counted twice), updates the request and the payment's `bridgeStatus`,
 * ends a still unpaid payment `failed` when the bridge refunded or failed (the refund is
 * on the request, and in the event), and writes `bridge.updated` (then `payment.failed`)
 * with the change. Reading the same thing twice writes nothing new.
 */
export async function recordBridgeProgress(db: Db, paymentId: string, seen: BridgeProgressUpdate, now: Date): Promise<RecordedBridgeProgress> {
  return db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    const payment = await lockPayment(tx, paymentId);
    const request = await lockBridgeRequest(tx, paymentId);
    if (!payment || !request) return { changed: false, finished: true, settled: true, closed: false, stale: false, stuck: false };
    // Two reads of one request can overlap (a webhook's prompt beside the poll): the older one's answer must not replace the newer.
    if (request.checkedAt && request.checkedAt > seen.readAt) return { changed: false, finished: request.finishedAt !== null, settled: false, closed: false, stale: true, stuck: false };

    const claimed = await bridgeFillsOf(tx, [paymentId]);
    const keyOf = (f: { chainId: string; txHash: string; logIndex: number }) => `${f.chainId}:${f.txHash}:${f.logIndex}`;
    const known = new Set(claimed.map(keyOf));
    // Only claims this read found on chain count toward what is filled: one a reorg removed
    // must not stop the solver's new fill from being claimed (the credits re-check receipts too).
    const onChain = new Set(seen.fills.map(keyOf));
    let filled = claimed.filter((f) => onChain.has(keyOf(f))).reduce((sum, f) => sum + f.amount, 0n);
    let newFills = 0;
    // A bridge filling several payments in one transaction sends each its own log: the one
    // of exactly what is still owed is this payment's (the bridge fills exact amounts).
    const owed = payment.amount - filled;
    const candidates = [...seen.fills].sort((a, b) => Number(b.amount === owed) - Number(a.amount === owed));
    for (const fill of candidates) {
      if (filled >= payment.amount) break;
      if (known.has(keyOf(fill))) continue;
      if (await claimBridgeFill(tx, { ...fill, paymentId })) {
        filled += fill.amount;
        newFills++;
      }
    }

    // Verified legs are only ever added to by a read that could not check them all.
    const kept = seen.originUnverified
      ? {
          depositAmount: seen.depositAmount > request.depositAmount ? seen.depositAmount : request.depositAmount,
          // When paid goes with how much: the time of the larger of the two reads' deposits.
          depositedAt: seen.depositAmount > request.depositAmount ? seen.depositedAt : (request.depositedAt ?? seen.depositedAt),
          refundedAmount: seen.refundedAmount > request.refundedAmount ? seen.refundedAmount : request.refundedAmount,
        }
      : { depositAmount: seen.depositAmount, depositedAt: seen.depositedAt, refundedAmount: seen.refundedAmount };
    const next: Partial<NewBridgeRequest> = {
      progress: seen.progress,
      bridgeStatus: seen.bridgeStatus,
      originTxHashes: seen.originTxHashes,
      destinationTxHashes: seen.destinationTxHashes,
      refundTxHashes: seen.refundTxHashes,
      ...kept,
      failReason: seen.failReason ?? (seen.progress === "refund" || seen.bridgeStatus === "refunding" ? seen.details : null),
      refundRequestedAt: request.refundRequestedAt ?? (seen.refundRequested ? now : null),
    };
    const same = (a: unknown, b: unknown) => JSON.stringify(a, (_k, v) => (typeof v === "bigint" ? v.toString() : v)) === JSON.stringify(b, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
    const changed = newFills > 0 || Object.entries(next).some(([key, value]) => !same(request[key as keyof typeof request], value));
    // Filled, and any excess the customer sent returned (a strict bridge refunds it separately,
    // less the refund's gas: a verified refund of it is the return).
    const excess = kept.depositAmount > request.amountToSend ? kept.depositAmount - request.amountToSend : 0n;
    const changedAt = changed ? now : request.changedAt;
    const quiet = (seen.progress === "success" || seen.progress === "failure") && now.getTime() - changedAt.getTime() >= BRIDGE_QUIET_MS;
    const finished =
      (seen.progress === "success" && filled >= payment.amount && (excess === 0n || kept.refundedAmount > 0n)) ||
      seen.progress === "refund" ||
      // Never paid: Relay's `waiting` also covers a deposit it lists but has not confirmed yet, whose fill is still to come.
      (seen.progress === "waiting" && seen.originTxHashes.length === 0 && kept.depositAmount === 0n && now.getTime() > request.expiresAt.getTime() + UNPAID_GRACE_MS) ||
      quiet;
    await updateBridgeRequest(tx, paymentId, {
      ...next,
      bridgeUpdatedAt: seen.bridgeUpdatedAt ?? request.bridgeUpdatedAt,
      checkedAt: seen.readAt,
      // Who paid is no change a merchant is told of (the deposit amount is): kept beside, a read that could not check every leg only adds to it.
      depositSenders: seen.originUnverified ? [...new Set([...request.depositSenders, ...(seen.depositSenders ?? [])])] : (seen.depositSenders ?? []),
      seenThrough: later(request.seenThrough, seen.seenThrough),
      changedAt,
      finishedAt: finished ? (request.finishedAt ?? now) : null,
    });

    // A refunded or failed bridge ends a payment it never paid (also one that expired meanwhile).
    const ends = (seen.progress === "refund" || seen.progress === "failure") && filled === 0n && (payment.status === "pending" || payment.status === "expired");
    const reason = `The bridge ${seen.progress === "refund" ? "refunded the customer" : "failed"}${next.failReason ? `: ${next.failReason}` : ""}`;
    const [after] = await tx
      .update(payments)
      .set(
        ends
          ? { bridgeStatus: seen.bridgeStatus, closedStatus: "failed", closedReason: reason, closedAt: now, status: "failed", updatedAt: now }
          : { bridgeStatus: seen.bridgeStatus, ...(payment.bridgeStatus !== seen.bridgeStatus ? { updatedAt: now } : {}) },
      )
      .where(eq(payments.id, paymentId))
      .returning();

    const events: NewPaymentEvent[] = [];
    if (changed) {
      const fills = await bridgeFillsOf(tx, [paymentId]);
      const current = { ...request, ...next, bridgeUpdatedAt: seen.bridgeUpdatedAt ?? request.bridgeUpdatedAt } as typeof request;
      const bridge = bridgeSnapshot(current, fills, { decimals: payment.tokenDecimals, currency: payment.tokenSymbol });
      events.push({ payment: after!, type: "bridge.updated", extra: { bridge } });
    }
    if (ends) for (const type of eventsForTransition(payment, after!)) events.push({ payment: after!, type });
    await recordPaymentEvents(tx, events);
    // The checkout page shows the bridge's progress: wake its stream.
    if (changed || ends) await announcePaymentChanges(tx, [paymentId]);
    const settled = (seen.progress === "success" && filled >= payment.amount) || seen.progress === "failure";
    const stuck = CARRYING.includes(seen.progress) && now.getTime() - changedAt.getTime() >= BRIDGE_STUCK_MS;
    return { changed, finished, settled, closed: ends, stale: false, stuck };
  });
}

/** The later of two times, either of which may be unknown (a horizon never moves back). */
const later = (a: Date | null, b: Date | null): Date | null => (a && b ? (a > b ? a : b) : (a ?? b));

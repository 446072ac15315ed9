import { sql } from "drizzle-orm";
import type { Config } from "../config/index.ts";
import { createLogger } from "../config/logger.ts";
import { queryRows, type Db } from "../db/client.ts";
import { announcePaymentChanges } from "../db/paymentChanges.ts";
import { writePaymentEvents, type NewPaymentEvent } from "../db/paymentEvents.ts";
import { lockPayments, type PaymentRow } from "../db/payments.ts";
import { writeClosings, writeSettlements, type ClosedPayment, type SettlementUpdate } from "../db/paymentSettlements.ts";
import { sweptPayments } from "../db/transfersOut.ts";
import { settle, type Settlement } from "../domain/settle.ts";
import { observeReceiptToStatus } from "../metrics/settlementMetrics.ts";
import { ingestFor, ingests } from "../rails/index.ts";
import { evidenceHorizons } from "./evidenceHorizons.ts";
import { loadEvidence } from "./loadEvidence.ts";
import { settlementEvents } from "./settlementEvents.ts";

/** `held`: the payment's answer stood because its chain's indexer is reading again blocks it had read: it must be looked at again once it is done. */
export type Reconciled = { before: PaymentRow; after: Settlement; changed: boolean; held?: boolean };

const quiet = createLogger({ level: "silent" });
const loggers = new WeakMap<Config, ReturnType<typeof createLogger>>();
/** What reconcile itself has to say (rare): one logger per loaded configuration. */
function logger(config: Config) {
  let found = loggers.get(config);
  if (!found) loggers.set(config, (found = createLogger({ level: config.logLevel, name: "reconcile" })));
  return found;
}

/**
 * How long a reconcile waits for a lock on the indexer's tables before it gives way. The
 * indexer's start-up migration takes its tables' exclusive locks one by one; a reconcile
 * holding one of them (it has read it) while waiting for another is a deadlock, and when
 * the indexer waited first Postgres rolls the indexer back — it exits. Below Postgres's
 * `deadlock_timeout` (1 s by default), the reconcile is the one to fail (55P03), and it is
 * retried as any failed job is; the API answers 503.
 */
const INDEXER_LOCK_WAIT = sql.raw("set local lock_timeout = '250ms'");
/** Our own writes wait as long as they must (the commit's NOTIFY takes a lock too). */
const NO_LOCK_WAIT_LIMIT = sql.raw("set local lock_timeout = default");

/**
 * Recomputes payments from their evidence and each chain's ingested head through
 * `settle`, and persists the result with its events, all in one transaction holding the
 * payments' row locks (taken in id order, so concurrent runs queue instead of
 * deadlocking or writing an older answer over a newer one). Safe to run any number of times.
 */
export async function reconcilePayments(db: Db, config: Config, ids: readonly string[], at?: Date): Promise<Map<string, Reconciled>> {
  if (ids.length === 0) return new Map();
  const result = await db.transaction((tx) => reconcileWithin(tx as unknown as Db, config, ids, at));
  observeCommitted(config, result);
  return result;
}

/** Once a reconcile has committed: how long each change took from its receipt (metrics). */
export function observeCommitted(config: Config, result: ReadonlyMap<string, Reconciled>): void {
  const networks = new Map(config.networks.map((n) => [n.chainId, n]));
  observeReceiptToStatus(result.values(), (chainId) => networks.get(chainId)?.shortName ?? chainId);
}

/**
 * `reconcilePayments` inside the caller's transaction `t` (one that has just recorded new
 * evidence, e.g. a bridge's progress, so the payment's state commits with it); the caller
 * passes the result to `observeCommitted` once it has committed.
 */
export async function reconcileWithin(t: Db, config: Config, ids: readonly string[], at?: Date): Promise<Map<string, Reconciled>> {
  const result = new Map<string, Reconciled>();
  if (ids.length === 0) return result;
  const networks = new Map(config.networks.map((n) => [n.chainId, n]));
  const ctx = { config, db: t, logger: quiet };
  // The ingested heads are read once, right behind the locks (pipelined, same order on the
  // server); from them on, a wait on the indexer's tables is bounded.
  // The time is the database's, read once the locks are held (`at`: a test's clock): a run
  // that waited for a lock, or runs on a machine whose clock is behind, must not judge the
  // payments at an earlier moment than the run before it did (an expired payment back to pending).
  const [rows, , clock, ...headMaps] = await Promise.all([
    lockPayments(t, ids),
    t.execute(INDEXER_LOCK_WAIT),
    at ? null : queryRows<{ now: Date }>(t, sql`select clock_timestamp() as now`),
    ...ingests().map((ingest) => ingest.indexedHeads(ctx)),
  ]);
  if (rows.length === 0) return result;
  const now = at ?? new Date(clock![0]!.now);
  const heads = new Map(headMaps.flatMap((m) => [...m]));
  const rereading = new Set(headMaps.flatMap((m) => [...(m.rereading ?? [])]));
  const { credits, inTransit, gaveUp, unreadable, evidenceThrough } = await loadEvidence(ctx, rows, heads);
  // Expiry needs to know how far each chain's evidence is complete: read only when a payment is past its deadline.
  const pastDeadline = rows.some((p) => !p.closedStatus && now > p.expiresAt);
  const horizons = pastDeadline ? await evidenceHorizons(ctx) : new Map<string, Date>();

  // Completed payments whose completing transaction is missing from the evidence now. Those
  // already swept were final (a sweep waits for finality): no reorg took it back, the read
  // model lost it (an indexer redeployed from a later START_BLOCK, rows pruned).
  const lostCompletions = rows.filter(
    (p) => p.status === "completed" && p.completingTxHash && !(credits.get(p.id) ?? []).some((c) => c.txHash.toLowerCase() === p.completingTxHash!.toLowerCase()),
  );
  const final = lostCompletions.length > 0 ? await sweptPayments(t, lostCompletions.map((p) => p.id)) : new Set<string>();

  // Whether its chain's ingest finds evidence in order (a bridge's fills are read on an EVM chain, in order).
  const ingestOf = (p: PaymentRow) => {
    const network = networks.get(p.chainId);
    return network && ingestFor(network);
  };
  const updates: SettlementUpdate[] = [];
  const closings: ClosedPayment[] = [];
  const events: NewPaymentEvent[] = [];
  for (const p of rows) {
    if (final.has(p.id)) {
      logger(config).error(
        { payment: p.id, chainId: p.chainId, completingTx: p.completingTxHash, completingBlock: p.completingBlock?.toString() },
        "a swept payment's completing transfer is missing from the indexed evidence (was the indexer redeployed from a later START_BLOCK?); its answer stands — replay the range (cli replay) to restore the evidence",
      );
      result.set(p.id, { before: p, after: standing(p), changed: false });
      continue;
    }
    // The indexer restarted and is reading again blocks it had read: every answer on its
    // chains stands (a credit missing now may be back in a moment) until it is done.
    // So does a payment whose evidence could not be read now (its chain's node failing).
    if (rereading.has(p.chainId) || unreadable.has(p.id)) {
      result.set(p.id, { before: p, after: standing(p), changed: false, held: rereading.has(p.chainId) });
      continue;
    }
    const list = credits.get(p.id) ?? [];
    const after = settle({
      amount: p.amount,
      expiresAt: p.expiresAt,
      closed: p.closedStatus && p.closedAt ? { status: p.closedStatus, at: p.closedAt } : null,
      confirmedAt: p.confirmedAt,
      credits: list,
      head: heads.get(p.chainId) ?? null,
      requiredConfirmations: networks.get(p.chainId)?.requiredConfirmations ?? 1,
      now,
      inTransitSince: inTransit.get(p.id) ?? null,
      transitFailed: gaveUp.has(p.id),
      evidenceThrough: earliest(horizons.get(p.chainId), evidenceThrough.get(p.id)),
      expiredBefore: p.status === "expired" && !p.closedStatus,
      // Solana finds evidence out of order: a late credit there proves no read-through.
      readsInOrder: !ingestOf(p)?.evidenceAheadOfHead,
    });
    // Ingest has not (re)read the block that completed it — the indexer is catching up after
    // a restart, or is mid-reorg: absent evidence there is not yet evidence of absence. Nor
    // does a head below the one the stored confirmations were counted at take them back
    // (ingest re-reading blocks it had read). The answer stands until ingest is past them again.
    const head = heads.get(p.chainId);
    const countedTo = p.completingBlock === null ? null : p.completingBlock + BigInt(Math.max(p.confirmations - 1, 0));
    const behindCompletion = !after.completingCredit && p.completingBlock !== null && (head === undefined || p.completingBlock > head);
    const behindCount = after.completingCredit && !after.completingCredit.final && countedTo !== null && head !== undefined && countedTo > head;
    // The same credit, in the same block, under a head that has not dropped, is short of the
    // confirmations now required only because the operator raised them: completed stays completed
    // (no `payment.reverted`, no second `payment.completed`, no second sweep prompt).
    const completing = after.completingCredit ? list.find((c) => c === after.completingCredit) : undefined;
    const raisedBar =
      p.status === "completed" &&
      after.status === "confirming" &&
      completing !== undefined &&
      completing.blockNumber === p.completingBlock &&
      completing.txHash.toLowerCase() === p.completingTxHash?.toLowerCase();
    if (behindCompletion || behindCount || raisedBar) {
      result.set(p.id, { before: p, after: standing(p), changed: false });
      continue;
    }
    const evidenceBlock = list.reduce<bigint | null>((max, c) => (c.final || (max !== null && max >= c.blockNumber) ? max : c.blockNumber), null);
    const completingTx = completing?.txHash ?? null;
    const completedVia = completing?.source ?? null;
    const changed =
      p.status !== after.status ||
      p.amountReceived !== after.amountReceived ||
      p.amountRemaining !== after.amountRemaining ||
      p.excessOwed !== after.excessOwed ||
      p.lateAmount !== after.lateAmount ||
      p.confirmations !== after.confirmations ||
      p.completingTxHash !== completingTx ||
      p.completedVia !== completedVia ||
      p.completingBlock !== (after.completingCredit?.blockNumber ?? null) ||
      p.evidenceBlock !== evidenceBlock ||
      p.detectedAt?.getTime() !== after.detectedAt?.getTime() ||
      p.confirmedAt?.getTime() !== after.confirmedAt?.getTime();
    // Ended by evidence, not by the merchant (the money on its way was given back or lost): closed for good, with why.
    const closed = !p.closedStatus && after.status === "failed" && gaveUp.has(p.id) ? { id: p.id, status: "failed" as const, reason: gaveUp.get(p.id)!, at: now } : null;
    if (changed) {
      updates.push({ id: p.id, after, completingTx, completedVia, evidenceBlock });
      if (closed) closings.push(closed);
      events.push(...settlementEvents(p, { after, completingTx, completedVia, now, closed }));
    }
    result.set(p.id, { before: p, after, changed });
  }
  // The outbox: each change's events commit with it (or not at all). The writes go out
  // together (pipelined on the transaction's connection); one NOTIFY statement tells
  // the checkout streams which payments changed, delivered on commit.
  await Promise.all([
    t.execute(NO_LOCK_WAIT_LIMIT),
    writeSettlements(t, updates, now),
    writeClosings(t, closings),
    writePaymentEvents(t, events),
    announcePaymentChanges(t, updates.map((u) => u.id)),
  ]);
  return result;
}

/** The earlier of the chain's and the payment's own evidence bounds; null when neither is known. */
const earliest = (chain: Date | undefined, own: Date | undefined): Date | null => (chain && own ? (chain < own ? chain : own) : (chain ?? own ?? null));

/** A payment's stored answer, as a settlement (its completing credit is not at hand). */
const standing = (p: PaymentRow): Settlement => ({
  status: p.status,
  amountReceived: p.amountReceived,
  amountRemaining: p.amountRemaining,
  excessOwed: p.excessOwed,
  lateAmount: p.lateAmount,
  confirmations: p.confirmations,
  detectedAt: p.detectedAt,
  confirmedAt: p.confirmedAt,
  completingCredit: null,
});

import { sql } from "drizzle-orm";
import { paymentIdToBytes32 } from "../rails/evm/settlement/index.ts";
import type { Config } from "../config/index.ts";
import type { Db } from "../db/client.ts";
import { loadCredits } from "../db/credits.ts";
import { indexedBlocks } from "../db/indexerProgress.ts";
import { writePaymentEvents, type NewPaymentEvent } from "../db/paymentEvents.ts";
import { lockPayments, type PaymentRow } from "../db/payments.ts";
import { settle, type Settlement } from "../domain/settle.ts";
import { settlementEvents } from "./settlementEvents.ts";

export type Reconciled = { before: PaymentRow; after: Settlement; changed: boolean };

/**
 * Recomputes payments from indexed evidence and the indexed head through `settle`,
 * and persists the result, all in one transaction holding the payments' row locks
 * (taken in id order, so concurrent runs queue instead of deadlocking or writing an
 * older answer over a newer one). Safe to run any number of times.
 */
export async function reconcilePayments(db: Db, config: Config, ids: readonly string[], now: Date = new Date()): Promise<Map<string, Reconciled>> {
  const result = new Map<string, Reconciled>();
  if (ids.length === 0) return result;
  const networks = new Map(config.networks.map((n) => [n.chainId, n]));

  await db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    // The indexed heads are read right behind the locks (pipelined, same order on the server).
    const [rows, heads] = await Promise.all([lockPayments(t, ids), indexedBlocks(t, config.indexer.viewsSchema)]);
    if (rows.length === 0) return;

    const credits = await loadCredits(
      t,
      config.indexer.viewsSchema,
      rows.map((p) => ({
        id: p.id,
        chainId: p.chainId,
        intentId: paymentIdToBytes32(p.id),
        tokenAddress: p.tokenAddress,
        merchantWallet: p.merchantWallet,
        contractAddress: p.contractAddress,
        receiveAddress: p.receiveAddress,
      })),
      heads,
    );

    const updates: SettlementUpdate[] = [];
    const events: NewPaymentEvent[] = [];
    for (const p of rows) {
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
      });
      const completing = after.completingCredit ? list.find((c) => c === after.completingCredit) : undefined;
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
        p.detectedAt?.getTime() !== after.detectedAt?.getTime() ||
        p.confirmedAt?.getTime() !== after.confirmedAt?.getTime();
      if (changed) {
        updates.push({ id: p.id, after, completingTx, completedVia });
        events.push(...settlementEvents(p, { after, completingTx, completedVia, now }));
      }
      result.set(p.id, { before: p, after, changed });
    }
    // The outbox: each change's events commit with it (or not at all). Both writes go out
    // together (pipelined on the transaction's connection): the events are prepared
    // while the server runs the UPDATE.
    await Promise.all([writeSettlements(t, updates, now), writePaymentEvents(t, events)]);
  });
  return result;
}

const ts = (d: Date | null) => (d ? d.toISOString() : null);

/**
 * One UPDATE for the whole batch (a row-by-row loop caps throughput at the round trips),
 * its values as one array per column: a dozen parameters whatever the batch size, so
 * the statement is parsed and planned like any small one.
 */
type SettlementUpdate = { id: string; after: Settlement; completingTx: string | null; completedVia: string | null };

async function writeSettlements(db: Db, updates: SettlementUpdate[], now: Date) {
  if (updates.length === 0) return;
  const column = <T>(f: (u: SettlementUpdate) => T) => sql.param(updates.map(f));
  await db.execute(sql`
    update payments p set
      status = v.status, completed_via = v.completed_via, amount_received = v.amount_received, amount_remaining = v.amount_remaining, excess_owed = v.excess_owed,
      late_amount = v.late_amount, confirmations = v.confirmations, completing_tx_hash = v.completing_tx_hash,
      completing_block = v.completing_block, detected_at = v.detected_at, confirmed_at = v.confirmed_at,
      reconciled_at = ${now.toISOString()}::timestamptz, updated_at = now()
    from unnest(
      ${column((u) => u.id)}::uuid[], ${column((u) => u.after.status)}::text[], ${column((u) => u.completedVia)}::text[],
      ${column((u) => u.after.amountReceived.toString())}::numeric[], ${column((u) => u.after.amountRemaining.toString())}::numeric[],
      ${column((u) => u.after.excessOwed.toString())}::numeric[], ${column((u) => u.after.lateAmount.toString())}::numeric[],
      ${column((u) => u.after.confirmations)}::int[], ${column((u) => u.completingTx)}::text[],
      ${column((u) => u.after.completingCredit?.blockNumber.toString() ?? null)}::numeric[],
      ${column((u) => ts(u.after.detectedAt))}::timestamptz[], ${column((u) => ts(u.after.confirmedAt))}::timestamptz[]
    ) as v(id, status, completed_via, amount_received, amount_remaining, excess_owed, late_amount, confirmations,
      completing_tx_hash, completing_block, detected_at, confirmed_at)
    where p.id = v.id`);
}

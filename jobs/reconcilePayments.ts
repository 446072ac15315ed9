import { inArray, sql, type SQL } from "drizzle-orm";
import { paymentIdToBytes32 } from "../chains/settlement/index.ts";
import type { Config } from "../config/index.ts";
import type { Db } from "../db/client.ts";
import { loadCredits } from "../db/credits.ts";
import { indexedBlocks } from "../db/indexerProgress.ts";
import { recordPaymentEvents, type NewPaymentEvent } from "../db/paymentEvents.ts";
import type { PaymentRow } from "../db/payments.ts";
import { payments } from "../db/schema.ts";
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
    const rows = await t
      .select()
      .from(payments)
      .where(inArray(payments.id, [...new Set(ids)]))
      .orderBy(payments.id)
      .for("update");
    if (rows.length === 0) return;

    const heads = await indexedBlocks(t, config.indexer.viewsSchema);
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
    await writeSettlements(t, updates, now);
    // The outbox: each change's events commit with it (or not at all).
    await recordPaymentEvents(t, events);
  });
  return result;
}

const ts = (d: Date | null) => (d ? d.toISOString() : null);

/** One UPDATE for the whole batch (a row-by-row loop caps throughput at the round trips). */
type SettlementUpdate = { id: string; after: Settlement; completingTx: string | null; completedVia: string | null };

async function writeSettlements(db: Db, updates: SettlementUpdate[], now: Date) {
  if (updates.length === 0) return;
  const rows: SQL[] = updates.map(
    ({ id, after, completingTx, completedVia }) => sql`(${id}::uuid, ${after.status}, ${completedVia}::text, ${after.amountReceived.toString()}::numeric, ${after.amountRemaining.toString()}::numeric,
      ${after.excessOwed.toString()}::numeric, ${after.lateAmount.toString()}::numeric, ${after.confirmations}::int, ${completingTx}::text,
      ${after.completingCredit?.blockNumber.toString() ?? null}::numeric, ${ts(after.detectedAt)}::timestamptz, ${ts(after.confirmedAt)}::timestamptz)`,
  );
  await db.execute(sql`
    update payments p set
      status = v.status, completed_via = v.completed_via, amount_received = v.amount_received, amount_remaining = v.amount_remaining, excess_owed = v.excess_owed,
      late_amount = v.late_amount, confirmations = v.confirmations, completing_tx_hash = v.completing_tx_hash,
      completing_block = v.completing_block, detected_at = v.detected_at, confirmed_at = v.confirmed_at,
      reconciled_at = ${now.toISOString()}::timestamptz, updated_at = now()
    from (values ${sql.join(rows, sql`, `)}) as v(id, status, completed_via, amount_received, amount_remaining, excess_owed, late_amount, confirmations,
      completing_tx_hash, completing_block, detected_at, confirmed_at)
    where p.id = v.id`);
}

import { sql } from "drizzle-orm";
import { queryRows } from "../../../db/client.ts";
import type { PaymentRow } from "../../../db/schema/index.ts";
import type { RailContext, SourcedCredit } from "../../types.ts";

type CreditRow = { payment_id: string; signature: string; amount: string; slot: string; account_index: number; ts: string; source: "transfer" | "settlement"; payer: string | null };

/**
 * The ingested Solana credits of these payments, in the one credit shape `settle`
 * takes: the slot as block number, the account's index in the transaction as log
 * index. Credits a fork dropped (`removed_at`) no longer count.
 */
export async function loadSolanaCredits(ctx: RailContext, payments: readonly PaymentRow[]): Promise<Map<string, SourcedCredit[]>> {
  const result = new Map<string, SourcedCredit[]>(payments.map((p) => [p.id, []]));
  if (payments.length === 0) return result;
  const rows = await queryRows<CreditRow>(ctx.db, sql`
    select payment_id, signature, amount::text as amount, slot::text as slot, account_index,
           extract(epoch from block_time)::text as ts, source, payer
    from solana_credits
    where payment_id = any(${sql.param(payments.map((p) => p.id))}::uuid[]) and removed_at is null
    order by slot, signature, account_index`);
  for (const r of rows) {
    result.get(r.payment_id)?.push({
      amount: BigInt(r.amount),
      blockNumber: BigInt(r.slot),
      logIndex: Number(r.account_index),
      timestamp: new Date(Math.round(Number(r.ts) * 1000)),
      txHash: r.signature,
      source: r.source,
      payer: r.payer,
    });
  }
  return result;
}

import { sql } from "drizzle-orm";
import { queryRows } from "../../../db/client.ts";
import type { PaymentRow } from "../../../db/schema/index.ts";
import type { LoadedCredits, RailContext, SourcedCredit } from "../../types.ts";
import { addressHorizons } from "./addressHorizons.ts";

type CreditRow = { payment_id: string; signature: string; amount: string; slot: string; account_index: number; ts: string; source: "transfer" | "settlement"; payer: string | null };

/**
 * The ingested Solana credits of these payments, in the one credit shape `settle`
 * takes: the slot as block number, the account's index in the transaction as log
 * index. Credits a fork dropped (`removed_at`) no longer count. Each payment's
 * `evidenceThrough` is its own account's horizon (`addressScans.ts`): expiry waits for it.
 */
export async function loadSolanaCredits(ctx: RailContext, payments: readonly PaymentRow[]): Promise<LoadedCredits> {
  const result: LoadedCredits = new Map<string, SourcedCredit[]>(payments.map((p) => [p.id, []]));
  if (payments.length === 0) return result;
  const evidenceThrough = await paymentHorizons(ctx, payments);
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
  return Object.assign(result, { evidenceThrough });
}

/** The time before every other: a payment whose account no scan has read through, or cannot be watched, is held. */
const NOTHING_READ = new Date(0);

/** Per payment, the evidence horizon of the account its subscriber scans. */
async function paymentHorizons(ctx: RailContext, payments: readonly PaymentRow[]): Promise<Map<string, Date>> {
  const result = new Map<string, Date>();
  // Loaded here, not at the top: it needs spl-token, which an EVM-only deployment never loads.
  const { watchOf } = await import("../watchedAccount.ts");
  const byChain = new Map<string, PaymentRow[]>();
  for (const p of payments) byChain.set(p.chainId, [...(byChain.get(p.chainId) ?? []), p]);
  for (const [chainId, list] of byChain) {
    const network = ctx.config.networks.find((n) => n.chainId === chainId && n.type === "solana");
    const scans = new Map<string, string>();
    for (const p of list) {
      try {
        if (network) scans.set(p.id, watchOf(network, p).scan);
      } catch {
        // Its token left the network's configuration: never scanned, never vouched for.
      }
    }
    const horizons = await addressHorizons(ctx.db, chainId, [...new Set(scans.values())]);
    for (const p of list) result.set(p.id, horizons.get(scans.get(p.id) ?? "") ?? NOTHING_READ);
  }
  return result;
}

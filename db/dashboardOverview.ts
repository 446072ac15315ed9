import { sql } from "drizzle-orm";
import type { Mode } from "../domain/mode.ts";
import { queryRows, type Db } from "./client.ts";
import { completedValueColumns } from "./paymentStats.ts";

type Account = { merchantId: string; mode: Mode };
type Range = { start: Date; endExclusive: Date };

/** One UTC day's completed value (the three sums of `completedValueColumns`, 10^-18 units). */
export type DailyValue = { day: string; completedUsd: bigint; completedAtRate: bigint; completedFiat: bigint };

/**
 * The account's completed value per UTC day of creation over [start, endExclusive), days with
 * none left out; one pass over the merchant/mode/createdAt index.
 */
export async function dailyCompletedValue(db: Db, account: Account, range: Range, fiatCurrency: string | null): Promise<DailyValue[]> {
  const rows = await queryRows<Record<string, string>>(db, sql`
    select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, ${completedValueColumns(fiatCurrency)}
    from payments
    where merchant_id = ${account.merchantId}::uuid and mode = ${account.mode}
      and created_at >= ${range.start.toISOString()}::timestamptz and created_at < ${range.endExclusive.toISOString()}::timestamptz
      and status = 'completed'
    group by 1 order by 1`);
  return rows.map((r) => ({ day: r.day!, completedUsd: BigInt(r.completed_usd!), completedAtRate: BigInt(r.completed_at_rate!), completedFiat: BigInt(r.completed_fiat!) }));
}

/** Payments created over the range, counted by status, by network id and by token symbol (one query, grouping sets). */
export async function paymentCounts(db: Db, account: Account, range: Range) {
  const rows = await queryRows<{ status: string | null; network_id: string | null; token_symbol: string | null; count: string }>(db, sql`
    select status, network_id::text as network_id, token_symbol, count(*)::text as count
    from payments
    where merchant_id = ${account.merchantId}::uuid and mode = ${account.mode}
      and created_at >= ${range.start.toISOString()}::timestamptz and created_at < ${range.endExclusive.toISOString()}::timestamptz
    group by grouping sets ((status), (network_id), (token_symbol))`);
  const of = (key: "status" | "network_id" | "token_symbol") =>
    rows
      .filter((r) => r[key] !== null)
      .map((r) => ({ key: r[key]!, count: Number(r.count) }))
      .sort((a, b) => b.count - a.count || a.key.localeCompare(b.key));
  return { byStatus: of("status"), byNetwork: of("network_id"), byToken: of("token_symbol") };
}

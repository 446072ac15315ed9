import { sql } from "drizzle-orm";
import type { Mode } from "../config/index.ts";
import { usdUnitsOfAmount } from "./usdUnits.ts";
import { queryRows, type Db } from "./client.ts";
import type { PaymentStatus } from "../domain/paymentStatus.ts";

export type PaymentStatsRow = {
  total: number;
  completed: number;
  pending: number;
  failed: number;
  agent: number;
  /** Completed payments neither priced in `fiatCurrency` nor valued in it at creation: their token amounts in 10^-18 USD. */
  completedUsd: bigint;
  /** Completed payments not priced in `fiatCurrency` but valued in it at creation: token amount × stored rate, in 10^-18 units of it (rounded half up). */
  completedAtRate: bigint;
  /** Completed payments priced in `fiatCurrency`: their fiat amounts in 10^-18 units of it. */
  completedFiat: bigint;
};

/**
 * The value of the completed payments among the rows selected, as three exact sums in 10^-18
 * units (columns completed_usd, completed_at_rate, completed_fiat; see `PaymentStatsRow`),
 * for `fiatCurrency` (the settlement currency; null for USD). Shared by the account's
 * statistics and the dashboard's volume per day.
 */
export const completedValueColumns = (fiatCurrency: string | null) => sql`
      round(coalesce(sum(${usdUnitsOfAmount})
        filter (where status = 'completed' and not coalesce(fiat_currency = ${fiatCurrency}::text, false)
                and not coalesce(settlement_currency = ${fiatCurrency}::text and settlement_rate is not null, false)), 0))::text as completed_usd,
      round(coalesce(sum(${usdUnitsOfAmount} * settlement_rate)
        filter (where status = 'completed' and not coalesce(fiat_currency = ${fiatCurrency}::text, false)
                and coalesce(settlement_currency = ${fiatCurrency}::text and settlement_rate is not null, false)), 0))::text as completed_at_rate,
      round(coalesce(sum(fiat_amount * 1000000000000000000::numeric)
        filter (where status = 'completed' and coalesce(fiat_currency = ${fiatCurrency}::text, false)), 0))::text as completed_fiat`;

/**
 * Counts and sums over the account's payments created in [start, endExclusive), in one
 * indexed query; sums are exact numeric in SQL (USD stablecoins 1:1, scaled to 18 decimals).
 * `fiatCurrency` is the merchant's settlement currency (null for USD).
 * `pending` counts pending and confirming; `failed` counts failed, cancelled and expired
 * (`statsGroups`); `statuses` narrows the selection to those statuses.
 */
export async function paymentStats(
  db: Db,
  account: { merchantId: string; mode: Mode },
  range: { start: Date | null; endExclusive: Date | null; statuses: readonly PaymentStatus[] | null; fiatCurrency: string | null },
): Promise<PaymentStatsRow> {
  const [row] = await queryRows<Record<string, string>>(db, sql`
    select
      count(*)::text as total,
      count(*) filter (where status = 'completed')::text as completed,
      count(*) filter (where status in ('pending', 'confirming'))::text as pending,
      count(*) filter (where status in ('failed', 'cancelled', 'expired'))::text as failed,
      count(*) filter (where agent_id is not null)::text as agent,
      ${completedValueColumns(range.fiatCurrency)}
    from payments
    where merchant_id = ${account.merchantId}::uuid and mode = ${account.mode}
      ${range.start ? sql`and created_at >= ${range.start.toISOString()}::timestamptz` : sql``}
      ${range.endExclusive ? sql`and created_at < ${range.endExclusive.toISOString()}::timestamptz` : sql``}
      ${range.statuses ? sql`and status in (${sql.join(range.statuses.map((status) => sql`${status}`), sql`, `)})` : sql``}`);
  return {
    total: Number(row!.total),
    completed: Number(row!.completed),
    pending: Number(row!.pending),
    failed: Number(row!.failed),
    agent: Number(row!.agent),
    completedUsd: BigInt(row!.completed_usd!),
    completedAtRate: BigInt(row!.completed_at_rate!),
    completedFiat: BigInt(row!.completed_fiat!),
  };
}

import type { Config, Mode } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { findMerchant } from "../../db/merchants.ts";
import { paymentStats } from "../../db/paymentStats.ts";
import { USD_SCALE } from "../../domain/agentPolicy.ts";
import { rangeEndExclusive, rangeStart } from "../../domain/dateRange.ts";
import { formatScaled, roundHalfUpDiv } from "../../domain/decimal.ts";
import { NotFoundError } from "../../domain/errors.ts";
import type { PaymentStatus } from "../../domain/paymentStatus.ts";
import { ratesFor, usableRate } from "../../rates/index.ts";
import { invalidQuery, queryDate, queryStatus, queryValue, type Query } from "./queryParams.ts";

/** The statuses `pendingPayments` and `failedPayments` count, which `statusFilter` selects by those names. */
const statsGroups: Partial<Record<string, readonly PaymentStatus[]>> = {
  pending: ["pending", "confirming"],
  failed: ["failed", "cancelled", "expired"],
};

/** Decimals the average is rounded to (half up): the smallest unit of the USD stablecoins. */
const AVERAGE_DECIMALS = 6;

/**
 * Completed value (`completedValueColumns`' three sums) in 10^-18 of the settlement currency,
 * for each of `rows`. USD: token amounts 1:1. Otherwise payments priced in that currency count
 * at their fiat amount, the others at the rate stored at their creation, and those without one
 * (no fresh rate then, or another settlement currency) at today's (503 if none).
 */
export async function inSettlementCurrency(
  config: Config,
  currency: string,
  rows: ReadonlyArray<{ completedUsd: bigint; completedAtRate: bigint; completedFiat: bigint }>,
): Promise<bigint[]> {
  const totals = rows.map((r) => r.completedUsd + r.completedFiat + r.completedAtRate);
  if (currency === "USD" || !rows.some((r) => r.completedUsd > 0n)) return totals;
  const why = "the total in your settlement currency cannot be computed. Retry later.";
  const rate = usableRate(await ratesFor(config).current(), currency, { stale: why, missing: why });
  return rows.map((r) => r.completedFiat + r.completedAtRate + roundHalfUpDiv(r.completedUsd * rate.units, 10n ** BigInt(rate.scale)));
}

/**
 * The spec's Account statistics over payments created between `startDate` and `endDate`
 * (inclusive; a date alone is the whole UTC day), optionally of one `statusFilter` (a status,
 * or `pending`/`failed` for the statuses those counters group).
 * `totalAmount` sums the amounts of the completed payments in that selection, in the
 * merchant's settlement currency; `averageAmount` is it divided by `completedPayments`.
 */
export async function merchantStats(deps: { config: Config; db: Db }, auth: { merchantId: string; mode: Mode }, query: Query) {
  const start = queryDate(query, "startDate");
  const end = queryDate(query, "endDate");
  if (start && end && rangeStart(start) >= rangeEndExclusive(end)) throw invalidQuery("endDate", "must not be before 'startDate'");
  const statusText = queryValue(query, "statusFilter");
  // A counter's name selects what that counter counts: `failed` is failed, cancelled and expired.
  // Own names only: `constructor` or `toString` must not find Object.prototype's (a 500).
  const group = statusText !== undefined && Object.hasOwn(statsGroups, statusText) ? statsGroups[statusText] : undefined;
  const statuses = statusText === undefined || statusText === "all" ? null : (group ?? [queryStatus("statusFilter", statusText)]);

  const merchant = await findMerchant(deps.db, auth.merchantId);
  if (!merchant) throw new NotFoundError("No such merchant.");
  const currency = merchant.settlementCurrency.toUpperCase();

  const row = await paymentStats(deps.db, auth, {
    start: start ? rangeStart(start) : null,
    endExclusive: end ? rangeEndExclusive(end) : null,
    statuses,
    fiatCurrency: currency === "USD" ? null : currency,
  });

  const [total] = await inSettlementCurrency(deps.config, currency, [row]);
  const average = row.completed === 0 ? 0n : roundHalfUpDiv(total!, BigInt(row.completed) * 10n ** BigInt(USD_SCALE - AVERAGE_DECIMALS));

  return {
    success: true,
    stats: {
      totalPayments: row.total,
      completedPayments: row.completed,
      pendingPayments: row.pending,
      failedPayments: row.failed,
      agentPayments: row.agent,
      totalAmount: formatScaled(total!, USD_SCALE, 2),
      averageAmount: formatScaled(average, AVERAGE_DECIMALS, 2),
      isNairaMerchant: merchant.isNairaMerchant,
    },
  };
}

import { Elysia } from "elysia";
import { dailyCompletedValue, paymentCounts } from "../../../db/dashboardOverview.ts";
import { findMerchant } from "../../../db/merchants.ts";
import { USD_SCALE } from "../../../domain/agentPolicy.ts";
import { parseIsoDate, rangeEndExclusive, startOfUtcDay } from "../../../domain/dateRange.ts";
import { formatScaled, roundHalfUpDiv } from "../../../domain/decimal.ts";
import { ValidationError } from "../../../domain/errors.ts";
import type { ApiDeps } from "../../deps.ts";
import { inSettlementCurrency } from "../../services/merchantStats.ts";
import { dashboardGuard } from "../guard.ts";
import { overviewPage } from "../pages/overviewPage.ts";
import { pageOrRefusal } from "../refusals.ts";
import { htmlPage } from "../respond.ts";

const DAY_MS = 86_400_000;
/** The longest range one overview covers (a year and a day). */
const MAX_DAYS = 366;
const DEFAULT_DAYS = 30;

/** A date-only query parameter (a UTC day), or the fallback when absent. */
function dayOf(query: Record<string, unknown>, name: string, fallback: Date): Date {
  const value = query[name];
  if (value === undefined || value === "") return fallback;
  const bound = typeof value === "string" ? parseIsoDate(value) : null;
  if (!bound || !bound.dateOnly) throw new ValidationError(name, `${name}: a date such as 2026-01-31`);
  return bound.at;
}

/** 2 decimal places (half up) of a value in 10^-18 units. */
const twoPlaces = (units: bigint) => formatScaled(roundHalfUpDiv(units, 10n ** BigInt(USD_SCALE - 2)), 2, 2);

/**
 * The overview over a range of UTC days (default the last 30): completed volume per day in the
 * merchant's settlement currency (as `/payments/merchant/stats` values it) and counts by status,
 * network and token.
 */
export const dashboardOverviewRoutes = (deps: ApiDeps, assets: string) =>
  new Elysia().use(dashboardGuard(deps, assets)).get(
    "/overview",
    ({ dash, query }) =>
      pageOrRefusal(assets, async () => {
        const today = startOfUtcDay(new Date());
        const to = dayOf(query, "to", today);
        const from = dayOf(query, "from", new Date(to.getTime() - (DEFAULT_DAYS - 1) * DAY_MS));
        const days = Math.round((to.getTime() - from.getTime()) / DAY_MS) + 1;
        if (days < 1) throw new ValidationError("to", "to: not before from");
        if (days > MAX_DAYS) throw new ValidationError("from", `from: at most ${MAX_DAYS} days before to`);
        const range = { start: from, endExclusive: rangeEndExclusive({ at: to, dateOnly: true }) };
        const currency = ((await findMerchant(deps.db, dash.merchantId))?.settlementCurrency ?? "USD").toUpperCase();
        const [daily, counts] = await Promise.all([dailyCompletedValue(deps.db, dash, range, currency === "USD" ? null : currency), paymentCounts(deps.db, dash, range)]);
        const values = await inSettlementCurrency(deps.config, currency, daily);
        const byDay = new Map(daily.map((d, i) => [d.day, values[i]!]));
        const series = Array.from({ length: days }, (_, i) => {
          const day = new Date(from.getTime() + i * DAY_MS).toISOString().slice(0, 10);
          return { day, volume: twoPlaces(byDay.get(day) ?? 0n) };
        });
        const total = twoPlaces(values.reduce((a, b) => a + b, 0n));
        const iso = (d: Date) => d.toISOString().slice(0, 10);
        return htmlPage(overviewPage(dash.page, deps.config, { from: iso(from), to: iso(to), currency, days: series, total, ...counts }));
      }),
    { dashboard: "read" },
  );

import { Elysia } from "elysia";
import { ratesFor, stablecoinSymbols } from "../../rates/index.ts";
import type { ApiDeps } from "../deps.ts";

/**
 * Exchange rates used for conversion (no credentials, spec rule 6): units of each
 * currency per one US dollar, as decimal strings; the catalogue's USD stablecoins are 1.
 * Stale rates are shown with `stale: true` (a payment is never priced with them); with
 * no rates at all the answer is 503.
 */
export const currencyRoutes = ({ config }: ApiDeps) =>
  new Elysia({ prefix: "/currency", tags: ["Catalogue"] }).get(
    "/rates",
    async () => {
      const snapshot = await ratesFor(config).current();
      const rates: Record<string, string> = { ...snapshot.rates };
      for (const symbol of stablecoinSymbols(config)) rates[symbol] = "1";
      return {
        success: true,
        base: snapshot.base,
        rates: Object.fromEntries(Object.entries(rates).sort(([a], [b]) => a.localeCompare(b))),
        updatedAt: snapshot.updatedAt.toISOString(),
        source: snapshot.source,
        stale: snapshot.stale,
      };
    },
    { detail: { summary: "Exchange rates (units per US dollar) used to price payments in fiat" } },
  );

import type { RatesProvider, RatesSnapshot } from "./types.ts";

/**
 * Rates from configuration (RATES_STATIC): never stale, because the operator vouches
 * for them; `updatedAt` is when the process loaded them.
 */
export function createStaticRatesProvider(rates: Record<string, string>, loadedAt: Date = new Date()): RatesProvider {
  const snapshot: RatesSnapshot = { base: "USD", rates: { USD: "1", ...rates }, updatedAt: loadedAt, source: "static", stale: false };
  return { source: "static", current: async () => ({ ...snapshot, rates: { ...snapshot.rates } }) };
}

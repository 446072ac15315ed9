import type { Config } from "../config/index.ts";
import { createLogger, type Logger } from "../config/logger.ts";
import { parseDecimal, type Decimal } from "../domain/decimal.ts";
import { RateUnavailableError } from "../domain/errors.ts";
import { createHttpRatesProvider } from "./httpProvider.ts";
import { createStaticRatesProvider } from "./staticProvider.ts";
import type { RatesProvider, RatesSnapshot } from "./types.ts";

export type { RatesProvider, RatesSnapshot } from "./types.ts";
export { createHttpRatesProvider } from "./httpProvider.ts";
export { createStaticRatesProvider } from "./staticProvider.ts";
export { parseRatesResponse, RatesResponseError } from "./parseRatesResponse.ts";

/** The provider the configuration asks for (RATES_PROVIDER); a failed fetch is logged (the cached rates hide it until they turn stale). */
export function createRatesProvider(config: Config, logger: Logger = createLogger({ level: config.logLevel, name: "rates" })): RatesProvider {
  if (config.rates.provider !== "http") return createStaticRatesProvider(config.rates.static);
  return createHttpRatesProvider({
    url: config.rates.url,
    timeoutMs: config.rates.timeoutMs,
    cacheTtlMs: config.rates.cacheTtlMs,
    maxAgeMs: config.rates.maxAgeMs,
    onError: (error) => logger.warn({ err: error, source: new URL(config.rates.url).host }, "exchange rates source failed; serving the last good rates while they last"),
  });
}

const providers = new WeakMap<Config, RatesProvider>();

/** One provider (and so one cache) per loaded configuration, shared by every route of the process. */
export function ratesFor(config: Config): RatesProvider {
  let provider = providers.get(config);
  if (!provider) providers.set(config, (provider = createRatesProvider(config)));
  return provider;
}

/** Symbols of the catalogue's stablecoins: all are USD stablecoins, counted 1:1. */
export const stablecoinSymbols = (config: Config): string[] =>
  [...new Set(config.networks.flatMap((n) => n.tokens.map((t) => t.symbol)))].sort();

/**
 * The rate to price a payment with: units of `currency` per US dollar, from a fresh
 * snapshot only. A stale or missing rate is a 503, never a guess; `consequence` says what
 * did not happen because of it (a payment's creation unless told otherwise).
 */
export function usableRate(
  snapshot: RatesSnapshot,
  currency: string,
  consequence = { stale: "the payment was not created. Retry later or price it in a stablecoin.", missing: "the payment was not created." },
): Decimal {
  if (snapshot.stale) {
    throw new RateUnavailableError(
      `The ${currency} exchange rate from ${snapshot.source} is stale (last updated ${snapshot.updatedAt.toISOString()}); ${consequence.stale}`,
    );
  }
  const text = snapshot.rates[currency];
  const rate = text === undefined ? null : parseDecimal(text, 36);
  if (!rate || rate.units === 0n) {
    throw new RateUnavailableError(`No exchange rate for ${currency} from ${snapshot.source}; ${consequence.missing}`);
  }
  return rate;
}

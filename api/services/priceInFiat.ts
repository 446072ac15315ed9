import { fiatToTokenUnits } from "../../domain/convertFiat.ts";
import { formatDecimal } from "../../domain/decimal.ts";
import { ValidationError } from "../../domain/errors.ts";
import { usableRate, type RatesProvider } from "../../rates/index.ts";
import type { FiatAmount } from "../requests/fiatAmount.ts";

export type FiatPricing = {
  /** Token smallest units the customer pays: the fiat amount converted, rounded up. */
  units: bigint;
  fiatAmount: string;
  fiatCurrency: string;
  /** Units of the fiat currency per US dollar, as used. */
  rate: string;
  source: string;
  rateAt: Date;
};

/**
 * Converts a fiat-priced amount to units of a USD stablecoin at the current rate. USD is
 * 1:1 without asking any source; any other currency needs a fresh rate (RateUnavailableError,
 * a 503, otherwise). Rounds up, so the merchant is never short.
 */
export async function priceInFiat(rates: RatesProvider, { value: fiat, currency }: FiatAmount, tokenDecimals: number): Promise<FiatPricing> {
  let rate = { units: 1n, scale: 0 };
  let source = "fixed";
  let rateAt = new Date();
  if (currency !== "USD") {
    const snapshot = await rates.current();
    // Fresh rates without this code: the request can never succeed as sent, so a 400 (a 503
    // tells a client to retry, for good). A stale table may just be missing it for now: 503.
    if (!snapshot.stale && snapshot.rates[currency] === undefined) {
      const priced = Object.keys(snapshot.rates).sort();
      const listed = priced.length > 12 ? `${priced.slice(0, 12).join(", ")}, … (GET /currency/rates lists all ${priced.length})` : priced.join(", ");
      throw new ValidationError("currency", `Invalid field 'currency': ${currency} has no exchange rate from ${snapshot.source}; price in USD, a stablecoin, or one of: ${listed}`);
    }
    rate = usableRate(snapshot, currency);
    source = snapshot.source;
    rateAt = snapshot.updatedAt;
  }
  const units = fiatToTokenUnits(fiat, rate, tokenDecimals);
  if (units >= 2n ** 256n) throw new ValidationError("amount", "Invalid field 'amount': too large");
  return { units, fiatAmount: formatDecimal(fiat), fiatCurrency: currency, rate: formatDecimal(rate), source, rateAt };
}

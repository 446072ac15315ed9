import { formatDecimal } from "../../domain/decimal.ts";
import { RateUnavailableError } from "../../domain/errors.ts";
import { usableRate, type RatesProvider } from "../../rates/index.ts";
import type { FiatPricing } from "./priceInFiat.ts";

export type SettlementRate = { settlementCurrency: string | null; settlementRate: string | null };

/**
 * What a new payment is worth in the merchant's settlement currency, for its statistics:
 * that currency's units per US dollar now (the pricing rate when the payment is priced in
 * it). Nothing for a USD merchant (1:1). Reporting only, so a missing or stale rate never
 * stops a payment: it is stored as null and statistics use the rate of the day they are read.
 */
export async function settlementRate(rates: RatesProvider, merchantCurrency: string, fiat: FiatPricing | null): Promise<SettlementRate> {
  const currency = merchantCurrency.toUpperCase();
  if (currency === "USD") return { settlementCurrency: null, settlementRate: null };
  if (fiat?.fiatCurrency === currency) return { settlementCurrency: currency, settlementRate: fiat.rate };
  try {
    return { settlementCurrency: currency, settlementRate: formatDecimal(usableRate(await rates.current(), currency)) };
  } catch (error) {
    if (error instanceof RateUnavailableError) return { settlementCurrency: currency, settlementRate: null };
    throw error;
  }
}

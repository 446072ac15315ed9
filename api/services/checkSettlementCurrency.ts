import type { Config } from "../../config/index.ts";
import { ratesFor } from "../../rates/index.ts";

export type SettlementCurrencyCheck = { currency: string } | { refused: string } | { unreadable: string };

/**
 * Whether a merchant may settle (be reported and priced) in `given`: USD, or a currency the
 * exchange rates know, since stats and settlement rates are priced in it and a currency without
 * a rate would make every stats read fail. Upper-cased. Shared by the operator's CLI and the dashboard.
 */
export async function checkSettlementCurrency(config: Config, given: string): Promise<SettlementCurrencyCheck> {
  const currency = given.trim().toUpperCase();
  if (currency === "USD") return { currency };
  if (currency === "") return { refused: "a currency code is needed (USD, EUR…)" };
  if (currency.length > 10) return { refused: "not a currency code" };
  let rates: Record<string, unknown>;
  let source: string;
  try {
    ({ rates, source } = await ratesFor(config).current());
  } catch (error) {
    return { unreadable: `the exchange rates could not be read to check ${currency} (${(error as Error).message})` };
  }
  if (rates[currency] === undefined) return { refused: `no exchange rate for ${currency} from ${source} (USD, or one of: ${Object.keys(rates).sort().join(", ")})` };
  return { currency };
}

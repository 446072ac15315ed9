import { normalizeDecimal } from "../domain/decimal.ts";
import { ConfigError } from "./configError.ts";

/** "EUR=0.92, NGN=1550" → {EUR: "0.92", NGN: "1550"}; codes are 3 letters, rates positive decimals. */
export function parseStaticRates(text: string): Record<string, string> {
  const rates: Record<string, string> = {};
  for (const entry of text.split(",").map((s) => s.trim()).filter(Boolean)) {
    const match = /^([A-Za-z]{3})\s*=\s*(\S+)$/.exec(entry);
    const code = match?.[1]!.toUpperCase();
    const rate = match ? normalizeDecimal(match[2]!) : null;
    if (!code || !rate || rate === "0") {
      throw new ConfigError(`RATES_STATIC: "${entry}" is not CODE=rate (units per US dollar, e.g. EUR=0.92)`);
    }
    if (code === "USD" && rate !== "1") throw new ConfigError("RATES_STATIC: USD is the base and is always 1");
    if (rates[code] !== undefined) throw new ConfigError(`RATES_STATIC: ${code} is listed twice`);
    rates[code] = rate;
  }
  return rates;
}

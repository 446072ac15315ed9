import { decimalFromNumber, normalizeDecimal } from "../domain/decimal.ts";

export type ParsedRates = { rates: Record<string, string>; updatedAt: Date | null };

export class RatesResponseError extends Error {
  override name = "RatesResponseError";
}

/**
 * The JSON of an open exchange-rates style source, as open.er-api.com answers
 * (`{result: "success", base_code: "USD", time_last_update_unix, rates: {EUR: 0.92, …}}`;
 * `base` and `timestamp` are accepted as the other common spellings). The base must be
 * USD; each rate must be a positive number or decimal string, else it is left out.
 */
export function parseRatesResponse(json: unknown): ParsedRates {
  if (json === null || typeof json !== "object" || Array.isArray(json)) throw new RatesResponseError("response is not a JSON object");
  const body = json as Record<string, unknown>;
  if (body.result !== undefined && body.result !== "success") throw new RatesResponseError(`source answered result "${String(body.result)}"`);
  const base = body.base_code ?? body.base;
  if (base !== "USD") throw new RatesResponseError(`base currency is ${JSON.stringify(base)}, expected "USD"`);
  const raw = body.rates;
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new RatesResponseError("response has no rates object");

  const rates: Record<string, string> = {};
  for (const [code, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!/^[A-Z]{3}$/.test(code)) continue;
    // A rate sent as a number is the double the source computed (often to 17 digits): taken as
    // written, not refused as an amount of too many digits would be (that dropped the currency).
    const text = typeof value === "number" ? decimalFromNumber(value, { anyDigits: true }) : typeof value === "string" ? normalizeDecimal(value, 36) : null;
    if (text === null || text === "0") continue;
    rates[code] = text;
  }
  if (rates.USD !== undefined && rates.USD !== "1") throw new RatesResponseError(`USD rate is ${rates.USD} against a USD base`);
  if (Object.keys(rates).length === 0) throw new RatesResponseError("response has no usable rates");

  return { rates: { ...rates, USD: "1" }, updatedAt: updateTime(body.time_last_update_unix ?? body.timestamp) };
}

/**
 * The source's update time: Unix seconds, as a number or a numeric string; a value only
 * milliseconds can be (past the year 5138 in seconds) is read as milliseconds. Absent: null
 * (the fetch time stands in). Present but unreadable, the answer is refused: taken as "now",
 * a mirror frozen days ago would never look stale.
 */
function updateTime(stamp: unknown): Date | null {
  if (stamp === undefined || stamp === null) return null;
  const value = typeof stamp === "number" ? stamp : typeof stamp === "string" && /^\s*\d+(\.\d+)?\s*$/.test(stamp) ? Number(stamp) : NaN;
  if (!Number.isFinite(value) || value <= 0) throw new RatesResponseError(`unreadable update time ${JSON.stringify(stamp)}`);
  return new Date(value >= 1e11 ? value : value * 1000);
}

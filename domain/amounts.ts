import { formatUnits } from "viem";
import { decimalFromNumber } from "./decimal.ts";
import { ValidationError } from "./errors.ts";

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * A decimal amount (string, or a JSON number written plainly) to the token's smallest
 * unit. Exact: more fractional digits than the token has is an error, never a rounding.
 */
export function parseAmount(field: string, value: unknown, decimals: number): bigint {
  return unitsOf(parseWrittenAmount(field, value), decimals);
}

/**
 * A positive amount as the request wrote it, before any token is known: its digits before
 * and after the point (trailing zeros dropped: "10.5000000" is 10.5). `unitsOf` turns it
 * into a token's smallest units.
 */
export type WrittenAmount = { field: string; whole: string; fraction: string };

/** The first half of `parseAmount`: the amount's form, and that it is more than 0. */
export function parseWrittenAmount(field: string, value: unknown): WrittenAmount {
  // A JSON number is read as the text it was written as, exponents expanded (5e-7 is 0.0000005).
  const text = typeof value === "number" ? numberText(field, value) : typeof value === "string" ? value.trim() : "";
  const match = DECIMAL.exec(text);
  if (!match) throw new ValidationError(field, `Invalid field '${field}': expected a positive decimal amount such as "10.50"`);
  // Trailing zeros are exact whatever the token's decimals.
  const amount = { field, whole: match[1]!, fraction: (match[2] ?? "").replace(/0+$/, "") };
  if (amount.fraction === "" && /^0+$/.test(amount.whole)) throw new ValidationError(field, `Invalid field '${field}': must be greater than 0`);
  return amount;
}

/** The second half of `parseAmount`: the written amount in smallest units of a token with `decimals`. */
export function unitsOf({ field, whole, fraction }: WrittenAmount, decimals: number): bigint {
  if (fraction.length > decimals) {
    throw new ValidationError(field, `Invalid field '${field}': at most ${decimals} decimal places for this token`);
  }
  const units = BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
  if (units >= 2n ** 256n) throw new ValidationError(field, `Invalid field '${field}': too large`);
  return units;
}

/** A JSON number's decimal text; "" (malformed) when not finite or negative. */
function numberText(field: string, value: number): string {
  if (!Number.isFinite(value) || value < 0) return "";
  const text = decimalFromNumber(value);
  // More digits than a double holds: the JSON parser already rounded what was sent.
  if (text === null) throw new ValidationError(field, `Invalid field '${field}': too many digits for a JSON number; send the amount as a string`);
  return text;
}

/** Smallest units to a decimal string with the token's decimals ("10.5", "0.000001"). */
export const formatAmount = (units: bigint, decimals: number): string => formatUnits(units, decimals);

import { formatUnits } from "viem";
import { ValidationError } from "./errors.ts";

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * A decimal amount (string, or a JSON number written plainly) to the token's smallest
 * unit. Exact: more fractional digits than the token has is an error, never a rounding.
 */
export function parseAmount(field: string, value: unknown, decimals: number): bigint {
  const text = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "") : typeof value === "string" ? value.trim() : "";
  const match = DECIMAL.exec(text);
  if (!match) throw new ValidationError(field, `Invalid field '${field}': expected a positive decimal amount such as "10.50"`);
  // A JSON number with more digits than a double holds was already rounded by the parser.
  if (typeof value === "number" && text.replace(".", "").replace(/^0+/, "").length > 15) {
    throw new ValidationError(field, `Invalid field '${field}': too many digits for a JSON number; send the amount as a string`);
  }
  const whole = match[1]!;
  // Trailing zeros are exact whatever the token's decimals: "10.5000000" is 10.5.
  const fraction = (match[2] ?? "").replace(/0+$/, "");
  if (fraction.length > decimals) {
    throw new ValidationError(field, `Invalid field '${field}': at most ${decimals} decimal places for this token`);
  }
  const units = BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
  if (units <= 0n) throw new ValidationError(field, `Invalid field '${field}': must be greater than 0`);
  if (units >= 2n ** 256n) throw new ValidationError(field, `Invalid field '${field}': too large`);
  return units;
}

/** Smallest units to a decimal string with the token's decimals ("10.5", "0.000001"). */
export const formatAmount = (units: bigint, decimals: number): string => formatUnits(units, decimals);

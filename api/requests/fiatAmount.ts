import { decimalFromNumber, parseDecimal, type Decimal } from "../../domain/decimal.ts";
import { ValidationError } from "../../domain/errors.ts";

/** A price in a fiat currency, as asked: converted to the token at creation (`priceInFiat`). */
export type FiatAmount = { value: Decimal; currency: string };

/** The body's `amount` of a payment priced in `currency` (a fiat code): positive, at most 18 decimals. */
export function parseFiatAmount(amount: unknown, currency: string): FiatAmount {
  const text = typeof amount === "number" ? decimalFromNumber(amount) : typeof amount === "string" ? amount.trim() : null;
  const value = text === null ? null : parseDecimal(text, 18);
  if (!value || value.units <= 0n) {
    throw new ValidationError("amount", `Invalid field 'amount': expected a positive ${currency} amount such as "10.50" (at most 18 decimals)`);
  }
  if (typeof amount === "number" && text!.replace(".", "").replace(/^0+/, "").length > 15) {
    throw new ValidationError("amount", "Invalid field 'amount': too many digits for a JSON number; send the amount as a string");
  }
  return { value, currency };
}

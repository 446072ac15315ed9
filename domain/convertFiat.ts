import { ceilDiv, type Decimal } from "./decimal.ts";

/**
 * A fiat amount to token units at `ratePerUsd` (units of the fiat currency per one US
 * dollar; a USD stablecoin counts 1:1). Exact, rounded up to the token's smallest unit,
 * so the merchant is never short: the customer pays at most one smallest unit more.
 *
 *   units = ⌈ fiat × 10^decimals / rate ⌉
 */
export function fiatToTokenUnits(fiat: Decimal, ratePerUsd: Decimal, tokenDecimals: number): bigint {
  if (ratePerUsd.units <= 0n) throw new RangeError("exchange rate must be positive");
  // fiat.units/10^fs × 10^d ÷ (rate.units/10^rs) = fiat.units × 10^(d+rs) ÷ (rate.units × 10^fs)
  const numerator = fiat.units * 10n ** BigInt(tokenDecimals + ratePerUsd.scale);
  const denominator = ratePerUsd.units * 10n ** BigInt(fiat.scale);
  return ceilDiv(numerator, denominator);
}

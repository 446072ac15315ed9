/**
 * Exact decimal arithmetic on bigints for money that is not in a token's smallest unit
 * (fiat amounts, exchange rates, USD totals). A value is `units / 10^scale`; nothing
 * here ever goes through a JavaScript number.
 */
export type Decimal = { units: bigint; scale: number };

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** A non-negative decimal string ("10.50", "0.92") to an exact Decimal; null when malformed or over `maxScale` digits. */
export function parseDecimal(text: string, maxScale = 18): Decimal | null {
  const match = DECIMAL.exec(text.trim());
  if (!match) return null;
  const fraction = (match[2] ?? "").replace(/0+$/, "");
  if (fraction.length > maxScale) return null;
  return { units: BigInt(match[1]! + fraction), scale: fraction.length };
}

/** The value in units of 10^-scale; throws if that would drop digits (callers bound the input scale). */
export function toScale(value: Decimal, scale: number): bigint {
  if (value.scale > scale) throw new RangeError(`cannot represent ${formatDecimal(value)} at scale ${scale}`);
  return value.units * 10n ** BigInt(scale - value.scale);
}

/** `units / 10^scale` as a plain decimal string, trailing zeros trimmed but at least `minFraction` fraction digits. */
export function formatScaled(units: bigint, scale: number, minFraction = 0): string {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, "0");
  const whole = digits.slice(0, digits.length - scale);
  let fraction = scale > 0 ? digits.slice(digits.length - scale).replace(/0+$/, "") : "";
  if (fraction.length < minFraction) fraction = fraction.padEnd(minFraction, "0");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

export const formatDecimal = (value: Decimal, minFraction = 0) => formatScaled(value.units, value.scale, minFraction);

/** Normalised text of a decimal string ("0.9200" → "0.92"); null when malformed. */
export function normalizeDecimal(text: string, maxScale = 18): string | null {
  const parsed = parseDecimal(text, maxScale);
  return parsed ? formatDecimal(parsed) : null;
}

/** ⌈a / b⌉ for a ≥ 0, b > 0. */
export const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/** a / b rounded half up, for a ≥ 0, b > 0. */
export const roundHalfUpDiv = (a: bigint, b: bigint): bigint => (2n * a + b) / (2n * b);

/**
 * A JSON number (as a parser produced it) to the decimal text it was written as.
 * `String(n)` is the shortest text that round-trips, so "1550.25" stays exactly that;
 * exponent forms (1e-7, 1.5e21) are expanded. Null for non-finite or negative values,
 * and for numbers with more digits than a double holds exactly (send those as strings) unless
 * `anyDigits`: where the double itself is the value meant (a rate a source computed), its
 * shortest round-trip text is taken as written.
 */
export function decimalFromNumber(value: number, options: { anyDigits?: boolean } = {}): string | null {
  if (!Number.isFinite(value) || value < 0) return null;
  const text = String(value);
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
  if (!match) return null;
  const digits = match[1]! + (match[2] ?? "");
  // More significant digits than a double holds: the parser already rounded what was sent.
  if (!options.anyDigits && digits.replace(/^0+/, "").length > 15) return null;
  const exponent = Number(match[3] ?? "0") - (match[2] ?? "").length;
  if (exponent >= 0) return formatScaled(BigInt(digits) * 10n ** BigInt(exponent), 0);
  return formatScaled(BigInt(digits), -exponent);
}

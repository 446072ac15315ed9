import { describe, expect, test } from "bun:test";
import { formatAmount, parseAmount } from "../../domain/amounts.ts";
import { ValidationError } from "../../domain/errors.ts";

/** 2^256 - 1: the largest uint256, and 2^256 as text with 0, 6 and 18 decimals. */
const MAX_UINT256 = 115792089237316195423570985008687907853269984665640564039457584007913129639935n;
const TWO_256_UNITS = "115792089237316195423570985008687907853269984665640564039457584007913129639936";
const TWO_256_AT_6 = "115792089237316195423570985008687907853269984665640564039457584007913129.639936";
const TWO_256_AT_18 = "115792089237316195423570985008687907853269984665640564039457.584007913129639936";
const MAX_AT_18 = "115792089237316195423570985008687907853269984665640564039457.584007913129639935";

const expectValidationError = (fn: () => unknown, field: string, message: string) => {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ValidationError);
  const error = caught as ValidationError;
  expect(error.field).toBe(field);
  expect(error.message).toBe(message);
  expect(error.status).toBe(400);
  expect(error.error).toBe("invalid_request");
};

describe("parseAmount: accepted", () => {
  const cases: Array<[string, unknown, number, bigint]> = [
    ["whole number string, 6 decimals", "10", 6, 10_000_000n],
    ["one decimal place", "10.5", 6, 10_500_000n],
    ["trailing zero within the token's decimals", "10.50", 6, 10_500_000n],
    ["the smallest unit, 6 decimals", "0.000001", 6, 1n],
    ["whole plus the smallest unit", "10.000001", 6, 10_000_001n],
    ["every decimal place used", "999999.999999", 6, 999_999_999_999n],
    ["leading zeros", "00010", 6, 10_000_000n],
    ["whole number string, 18 decimals", "10", 18, 10_000_000_000_000_000_000n],
    ["one token, 18 decimals", "1", 18, 10n ** 18n],
    ["one and a half tokens, 18 decimals", "1.5", 18, 1_500_000_000_000_000_000n],
    ["the smallest unit, 18 decimals", "0.000000000000000001", 18, 1n],
    ["JSON number with a fraction", 10.5, 6, 10_500_000n],
    ["JSON integer", 1, 6, 1_000_000n],
    ["JSON number, the smallest unit of 6 decimals", 0.000001, 6, 1n],
    ["JSON number 0.1 with 18 decimals is exact", 0.1, 18, 100_000_000_000_000_000n],
    ["spaces around are trimmed", " 10 ", 6, 10_000_000n],
    ["tabs and newlines around are trimmed", "\t10.5\n", 6, 10_500_000n],
    ["the largest uint256, 0 decimals", MAX_UINT256.toString(), 0, MAX_UINT256],
    ["the largest uint256, 18 decimals", MAX_AT_18, 18, MAX_UINT256],
  ];
  for (const [what, value, decimals, expected] of cases) {
    test(`${what}: ${JSON.stringify(value)} → ${expected}`, () => expect(parseAmount("amount", value, decimals)).toBe(expected));
  }
});

describe("parseAmount: rejected with a ValidationError naming the field", () => {
  const NOT_DECIMAL = (field: string) => `Invalid field '${field}': expected a positive decimal amount such as "10.50"`;
  const NOT_POSITIVE = (field: string) => `Invalid field '${field}': must be greater than 0`;
  const TOO_MANY_PLACES = (field: string, decimals: number) => `Invalid field '${field}': at most ${decimals} decimal places for this token`;
  const TOO_LARGE = (field: string) => `Invalid field '${field}': too large`;

  const cases: Array<[string, unknown, number, (field: string) => string]> = [
    ["zero", "0", 6, NOT_POSITIVE],
    ["zero with a fraction", "0.0", 6, NOT_POSITIVE],
    ["zero with every decimal place", "0.000000", 6, NOT_POSITIVE],
    ["JSON zero", 0, 6, NOT_POSITIVE],
    ["JSON negative zero", -0, 6, NOT_POSITIVE],
    ["7 decimal places for a 6-decimal token", "10.0000001", 6, (f) => TOO_MANY_PLACES(f, 6)],
    ["half the smallest unit, 6 decimals", "0.0000005", 6, (f) => TOO_MANY_PLACES(f, 6)],
    ["19 decimal places for an 18-decimal token", "0.0000000000000000001", 18, (f) => TOO_MANY_PLACES(f, 18)],
    ["JSON number 0.1 + 0.2 (a rounded double)", 0.1 + 0.2, 6, (f) => `Invalid field '${f}': too many digits for a JSON number; send the amount as a string`],
    ["JSON number with 7 decimal places", 0.1234567, 6, (f) => TOO_MANY_PLACES(f, 6)],
    ["negative string", "-1", 6, NOT_DECIMAL],
    ["JSON negative", -1, 6, NOT_DECIMAL],
    ["exponent notation", "1e6", 6, NOT_DECIMAL],
    ["letters", "abc", 6, NOT_DECIMAL],
    ["amount with a currency", "10 USDC", 6, NOT_DECIMAL],
    ["empty string", "", 6, NOT_DECIMAL],
    ["blank string", " ", 6, NOT_DECIMAL],
    ["trailing dot", "1.", 6, NOT_DECIMAL],
    ["leading dot", ".5", 6, NOT_DECIMAL],
    ["plus sign", "+1", 6, NOT_DECIMAL],
    ["decimal comma", "1,5", 6, NOT_DECIMAL],
    ["thousands separator", "1,000", 6, NOT_DECIMAL],
    ["space inside", "1 000", 6, NOT_DECIMAL],
    ["two dots", "1.2.3", 6, NOT_DECIMAL],
    ["hex", "0x10", 6, NOT_DECIMAL],
    ["non-ASCII digits", "١٠", 6, NOT_DECIMAL],
    ["null", null, 6, NOT_DECIMAL],
    ["undefined", undefined, 6, NOT_DECIMAL],
    ["NaN", Number.NaN, 6, NOT_DECIMAL],
    ["Infinity", Number.POSITIVE_INFINITY, 6, NOT_DECIMAL],
    ["-Infinity", Number.NEGATIVE_INFINITY, 6, NOT_DECIMAL],
    ["boolean", true, 6, NOT_DECIMAL],
    ["empty object", {}, 6, NOT_DECIMAL],
    ["object wrapping an amount", { amount: "10" }, 6, NOT_DECIMAL],
    ["array", ["10"], 6, NOT_DECIMAL],
    ["2^256 units, 0 decimals", TWO_256_UNITS, 0, TOO_LARGE],
    ["2^256 units, 6 decimals", TWO_256_AT_6, 6, TOO_LARGE],
    ["2^256 units, 18 decimals", TWO_256_AT_18, 18, TOO_LARGE],
  ];
  for (const [what, value, decimals, message] of cases) {
    test(what, () => expectValidationError(() => parseAmount("amount", value, decimals), "amount", message("amount")));
  }

  test("the field name given is the one reported", () => {
    expectValidationError(() => parseAmount("items[2].price", "abc", 6), "items[2].price", NOT_DECIMAL("items[2].price"));
    expectValidationError(() => parseAmount("fiatAmount", "1.001", 2), "fiatAmount", TOO_MANY_PLACES("fiatAmount", 2));
    expectValidationError(() => parseAmount("refundAmount", "0", 6), "refundAmount", NOT_POSITIVE("refundAmount"));
  });

  // A JSON number past 2^53 reaches parseAmount already rounded by JSON.parse: the merchant
  // wrote 12345678901234567890 and would get a payment for 12345678901234567000 without a word.
  // An amount a double cannot carry exactly should be refused and asked for as a string.
  test("a JSON number a double cannot hold exactly is refused, not silently rounded", () => {
    const { amount } = JSON.parse('{"amount": 12345678901234567890}') as { amount: number };
    expectValidationError(
      () => parseAmount("amount", amount, 0),
      "amount",
      "Invalid field 'amount': too many digits for a JSON number; send the amount as a string",
    );
    expect(parseAmount("amount", "12345678901234567890", 0)).toBe(12345678901234567890n);
  });

  // BUG: a JSON number JavaScript prints with an exponent (5e-7, 1e21) was refused as "not a
  // decimal", though the fiat path and agent limits took the same number.
  test("a JSON number printed with an exponent is the decimal it was written as", () => {
    expect(parseAmount("amount", JSON.parse("0.0000005") as number, 18)).toBe(500_000_000_000n);
    expect(parseAmount("amount", 0.0000001, 18)).toBe(100_000_000_000n);
    expect(parseAmount("amount", JSON.parse("1000000000000000000000") as number, 6)).toBe(10n ** 27n);
    expect(parseAmount("amount", 1.5e-7, 6 + 2)).toBe(15n);
    expectValidationError(() => parseAmount("amount", 5e-7, 6), "amount", TOO_MANY_PLACES("amount", 6));
  });

  test("trailing zeros past the token's decimals are exact, not an error", () => {
    expect(parseAmount("amount", "10.5000000", 6)).toBe(10_500_000n);
    expect(parseAmount("amount", "1.000000000000000000000", 18)).toBe(10n ** 18n);
  });
});

describe("formatAmount", () => {
  const cases: Array<[bigint, number, string]> = [
    [1n, 6, "0.000001"],
    [10_500_000n, 6, "10.5"],
    [10_000_000n, 6, "10"],
    [10_000_001n, 6, "10.000001"],
    [999_999_999_999n, 6, "999999.999999"],
    [0n, 6, "0"],
    [10n ** 18n, 18, "1"],
    [1n, 18, "0.000000000000000001"],
    [1_500_000_000_000_000_000n, 18, "1.5"],
    [10n ** 19n, 18, "10"],
    [0n, 18, "0"],
    [MAX_UINT256, 18, MAX_AT_18],
    [42n, 0, "42"],
  ];
  for (const [units, decimals, expected] of cases) {
    test(`${units} with ${decimals} decimals → "${expected}"`, () => expect(formatAmount(units, decimals)).toBe(expected));
  }

  test("parseAmount(formatAmount(x)) round-trips every non-zero case", () => {
    for (const [units, decimals] of cases) {
      if (units > 0n) expect(parseAmount("amount", formatAmount(units, decimals), decimals)).toBe(units);
    }
  });
});

import { buildConfig } from "../../plugins/config.ts";
import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../config/index.ts";
import { fiatToTokenUnits } from "../../domain/convertFiat.ts";
import { ceilDiv, decimalFromNumber, formatScaled, normalizeDecimal, parseDecimal, roundHalfUpDiv, toScale } from "../../domain/decimal.ts";
import { RateUnavailableError } from "../../domain/errors.ts";
import { createStaticRatesProvider, parseRatesResponse, RatesResponseError, usableRate, type RatesSnapshot } from "../../rates/index.ts";

const d = (text: string) => parseDecimal(text)!;

describe("decimal", () => {
  test.each([
    ["10.50", { units: 105n, scale: 1 }],
    ["0.92", { units: 92n, scale: 2 }],
    ["1550", { units: 1550n, scale: 0 }],
    ["0001.000", { units: 1n, scale: 0 }],
    ["0.000000000000000001", { units: 1n, scale: 18 }],
  ])("parseDecimal(%p)", (text, expected) => expect(parseDecimal(text)).toEqual(expected));

  test.each(["", "-1", "1e5", "1.", ".5", "1,5", "0x10", "1.0000000000000000001", " 1 2"])("parseDecimal rejects %p", (text) => {
    expect(parseDecimal(text)).toBeNull();
  });

  test("formatScaled trims trailing zeros and keeps a minimum of fraction digits", () => {
    expect(formatScaled(150_000_000_000_000_000_000n, 18, 2)).toBe("150.00");
    expect(formatScaled(1n, 18, 2)).toBe("0.000000000000000001");
    expect(formatScaled(12_345_000n, 6, 2)).toBe("12.345");
    expect(formatScaled(0n, 6, 2)).toBe("0.00");
    expect(formatScaled(0n, 6)).toBe("0");
    expect(formatScaled(-5n, 2)).toBe("-0.05");
    expect(formatScaled(42n, 0)).toBe("42");
  });

  test("normalizeDecimal, toScale, ceilDiv, roundHalfUpDiv", () => {
    expect(normalizeDecimal("0.9200")).toBe("0.92");
    expect(normalizeDecimal("abc")).toBeNull();
    expect(toScale(d("1.5"), 6)).toBe(1_500_000n);
    expect(() => toScale(d("1.5555"), 2)).toThrow(RangeError);
    expect(ceilDiv(10n, 3n)).toBe(4n);
    expect(ceilDiv(9n, 3n)).toBe(3n);
    expect(roundHalfUpDiv(5n, 2n)).toBe(3n);
    expect(roundHalfUpDiv(4n, 3n)).toBe(1n);
    expect(roundHalfUpDiv(5n, 3n)).toBe(2n);
  });

  test.each([
    [0.92, "0.92"],
    [1550, "1550"],
    [1550.25, "1550.25"],
    [1e-7, "0.0000001"],
    [1.5e-7, "0.00000015"],
    [1.5e21, "1500000000000000000000"],
    [3.6725, "3.6725"],
  ])("decimalFromNumber(%p) is the text the source wrote", (n, text) => expect(decimalFromNumber(n)).toBe(text));

  test("decimalFromNumber refuses negative and non-finite numbers", () => {
    expect(decimalFromNumber(-1)).toBeNull();
    expect(decimalFromNumber(Number.NaN)).toBeNull();
    expect(decimalFromNumber(Number.POSITIVE_INFINITY)).toBeNull();
  });
});

describe("fiatToTokenUnits: rounds up to the token's smallest unit, exactly", () => {
  test.each([
    // [fiat, rate (units per USD), decimals, expected smallest units]
    ["100", "1", 6, 100_000_000n],
    ["10.50", "1", 6, 10_500_000n],
    ["0.0000001", "1", 6, 1n], // a tenth of a micro-dollar still costs one unit
    ["1", "3", 6, 333_334n], // 0.333333… → up
    ["2", "3", 6, 666_667n], // 0.666666… → up
    ["1", "7", 6, 142_858n], // 0.142857142… → 0.142858
    ["100", "0.92", 6, 108_695_653n], // 108.695652173… EUR→USD
    ["92", "0.92", 6, 100_000_000n], // exact: no rounding
    ["1550", "1550", 6, 1_000_000n], // exactly one dollar
    ["1551", "1550", 6, 1_000_646n], // 1.000645161… → 1.000646
    ["10000", "1550", 18, 6_451_612_903_225_806_452n], // 6.451612903225806451612… → …452
    ["1", "3", 18, 333_333_333_333_333_334n],
    ["92", "0.92", 18, 100n * 10n ** 18n],
    ["0.000000000000000001", "1", 18, 1n],
    ["0.000000000000000001", "2", 18, 1n], // half a wei-unit still costs one
    ["1234.5678", "1.2345678", 6, 1_000_000_000n], // 1234.5678 / 1.2345678 = 1000 exactly
  ])("%s at %s per USD, %d decimals → %p", (fiat, rate, decimals, expected) => {
    const units = fiatToTokenUnits(d(fiat), d(rate), decimals);
    expect(units).toBe(expected);
    // Never short: the units are worth at least the fiat amount, and one unit less is not.
    const fiatScaled = d(fiat).units * 10n ** BigInt(decimals + d(rate).scale);
    const rateScaled = d(rate).units * 10n ** BigInt(d(fiat).scale);
    expect(units * rateScaled >= fiatScaled).toBe(true);
    expect((units - 1n) * rateScaled < fiatScaled).toBe(true);
  });

  test("a zero rate is refused", () => {
    expect(() => fiatToTokenUnits(d("1"), { units: 0n, scale: 0 }, 6)).toThrow(RangeError);
  });
});

describe("parseRatesResponse (open.er-api.com's shape)", () => {
  const body = { result: "success", base_code: "USD", time_last_update_unix: 1_700_000_000, rates: { USD: 1, EUR: 0.92, NGN: 1550.5, JPY: 151.23 } };

  test("rates become exact decimal strings; time_last_update_unix is updatedAt", () => {
    expect(parseRatesResponse(body)).toEqual({
      rates: { USD: "1", EUR: "0.92", NGN: "1550.5", JPY: "151.23" },
      updatedAt: new Date(1_700_000_000_000),
    });
  });

  test("`base` and `timestamp` spellings, decimal-string rates, bad entries left out", () => {
    expect(parseRatesResponse({ base: "USD", timestamp: 1_600_000_000, rates: { EUR: "0.9200", BAD: "x", GBP: -1, XAU: 0, lower: 1, CHF: 0.88 } })).toEqual({
      rates: { EUR: "0.92", CHF: "0.88", USD: "1" },
      updatedAt: new Date(1_600_000_000_000),
    });
  });

  // BUG: a rate sent with 16–17 significant digits (a source's computed double) was dropped as
  // "too many digits for a JSON number": its currency then read as not priced (a 400).
  test("a rate sent as a full-precision double is taken as written", () => {
    expect(parseRatesResponse({ base_code: "USD", rates: { EUR: 1.0869565217391304, GBP: 0.79 } }).rates).toEqual({ EUR: "1.0869565217391304", GBP: "0.79", USD: "1" });
  });

  // BUG: an update time sent as a string, or in milliseconds, read as "none" or as the year 55,000
  // (then clamped to the fetch): a mirror frozen for days looked fresh at every fetch.
  test("the update time in seconds or milliseconds, as a number or a numeric string; one present but unreadable refuses the answer", () => {
    const at = (stamp: unknown) => parseRatesResponse({ base_code: "USD", time_last_update_unix: stamp, rates: { EUR: 0.92 } }).updatedAt;
    expect(at(1_700_000_000)).toEqual(new Date(1_700_000_000_000));
    expect(at("1700000000")).toEqual(new Date(1_700_000_000_000));
    expect(at(1_700_000_000_123)).toEqual(new Date(1_700_000_000_123));
    expect(at(undefined)).toBeNull();
    for (const bad of ["yesterday", 0, -5, true, {}]) expect(() => at(bad)).toThrow(RatesResponseError);
  });

  test.each([
    ["not an object", [1, 2]],
    ["an error result", { result: "error", "error-type": "unsupported-code" }],
    ["another base", { base_code: "EUR", rates: { USD: 1.08 } }],
    ["no rates", { base_code: "USD" }],
    ["rates not an object", { base_code: "USD", rates: [1] }],
    ["no usable rates", { base_code: "USD", rates: { EUR: "n/a" } }],
    ["USD not 1", { base_code: "USD", rates: { USD: 1.1, EUR: 0.9 } }],
  ])("refuses %s", (_name, json) => {
    expect(() => parseRatesResponse(json)).toThrow(RatesResponseError);
  });
});

describe("static provider and usableRate", () => {
  test("the configured table plus USD, never stale", async () => {
    const loadedAt = new Date("2025-01-01T00:00:00Z");
    const snapshot = await createStaticRatesProvider({ EUR: "0.92", NGN: "1550" }, loadedAt).current();
    expect(snapshot).toEqual({ base: "USD", rates: { USD: "1", EUR: "0.92", NGN: "1550" }, updatedAt: loadedAt, source: "static", stale: false });
  });

  const snap = (over: Partial<RatesSnapshot> = {}): RatesSnapshot => ({
    base: "USD",
    rates: { USD: "1", EUR: "0.92" },
    updatedAt: new Date(),
    source: "test",
    stale: false,
    ...over,
  });

  test("a fresh rate is usable; a stale or missing one is a 503", () => {
    expect(usableRate(snap(), "EUR")).toEqual({ units: 92n, scale: 2 });
    expect(() => usableRate(snap({ stale: true }), "EUR")).toThrow(RateUnavailableError);
    expect(() => usableRate(snap(), "NGN")).toThrow(RateUnavailableError);
    expect(() => usableRate(snap(), "NGN")).toThrow("No exchange rate for NGN from test; the payment was not created.");
    // Not every caller is a creation: the stats say what they could not do.
    expect(() => usableRate(snap({ stale: true }), "EUR", { stale: "no total.", missing: "none." })).toThrow(/is stale \(last updated .*\); no total\.$/);
    try {
      usableRate(snap({ stale: true }), "EUR");
    } catch (error) {
      expect((error as RateUnavailableError).status).toBe(503);
      expect((error as RateUnavailableError).message).toContain("stale");
    }
  });
});

describe("rates configuration", () => {
  test("RATES_STATIC parses to normalised decimal strings", () => {
    const config = buildConfig({ RATES_STATIC: "eur=0.9200, NGN = 1550 ,GBP=0.79" });
    expect(config.rates.static).toEqual({ EUR: "0.92", NGN: "1550", GBP: "0.79" });
    expect(config.rates.provider).toBe("static");
    expect(config.rates.maxAgeMs).toBe(36 * 3600 * 1000);
  });

  test.each([
    ["EUR", "not CODE=rate"],
    ["EURO=1", "not CODE=rate"],
    ["EUR=-1", "not CODE=rate"],
    ["EUR=0", "not CODE=rate"],
    ["EUR=abc", "not CODE=rate"],
    ["USD=2", "always 1"],
    ["EUR=1,EUR=2", "twice"],
  ])("RATES_STATIC=%p is refused naming the variable", (value, message) => {
    expect(() => buildConfig({ RATES_STATIC: value })).toThrow(ConfigError);
    expect(() => buildConfig({ RATES_STATIC: value })).toThrow(/RATES_STATIC/);
    expect(() => buildConfig({ RATES_STATIC: value })).toThrow(message);
  });

  test("HTTP provider settings", () => {
    const config = buildConfig({ RATES_PROVIDER: "http", RATES_URL: "http://127.0.0.1:9/latest", RATES_TIMEOUT_MS: "500", RATES_CACHE_TTL_SECONDS: "60", RATES_MAX_AGE_SECONDS: "3600" });
    expect(config.rates).toMatchObject({ provider: "http", url: "http://127.0.0.1:9/latest", timeoutMs: 500, cacheTtlMs: 60_000, maxAgeMs: 3_600_000 });
    expect(() => buildConfig({ RATES_PROVIDER: "oracle" })).toThrow(/RATES_PROVIDER/);
    expect(() => buildConfig({ RATES_URL: "ftp://x" })).toThrow(/RATES_URL/);
  });
});

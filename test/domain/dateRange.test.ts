import { describe, expect, test } from "bun:test";
import { parseIsoDate, rangeEndExclusive, startOfUtcDay } from "../../domain/dateRange.ts";

describe("parseIsoDate", () => {
  test.each([
    ["2024-05-31", "2024-05-31T00:00:00.000Z", true],
    ["2024-02-29", "2024-02-29T00:00:00.000Z", true],
    ["2024-05-31T12:30:00Z", "2024-05-31T12:30:00.000Z", false],
    ["2024-05-31T12:30Z", "2024-05-31T12:30:00.000Z", false],
    ["2024-05-31T12:30:00.250+02:00", "2024-05-31T10:30:00.250Z", false],
    ["2024-05-31T12:30:00", "2024-05-31T12:30:00.000Z", false],
  ])("%s", (text, iso, dateOnly) => {
    expect(parseIsoDate(text)).toEqual({ at: new Date(iso), dateOnly });
  });

  test.each(["", "yesterday", "2024-13-01", "2023-02-29", "2024-05-32", "2024-5-1", "2024-05-31T25:00:00Z", "2024-05-31 12:00", "1717000000"])(
    "rejects %p",
    (text) => expect(parseIsoDate(text)).toBeNull(),
  );

  // Postgres has no year 0 and cannot read JS's "+010000-…": such a bound would fail the query (a 500), so it is refused here.
  test.each(["0000-01-01", "0000-12-31T23:59:59Z", "0001-01-01T00:30:00+01:00", "9999-12-31T23:00:00-05:00", "10000-01-01"])(
    "rejects %p (outside years 0001–9999 UTC)",
    (text) => expect(parseIsoDate(text)).toBeNull(),
  );

  test("the first and last days Postgres can take are accepted; an end on the last day stops at its last instant", () => {
    expect(parseIsoDate("0001-01-01")).toEqual({ at: new Date("0001-01-01T00:00:00.000Z"), dateOnly: true });
    expect(parseIsoDate("9999-12-31T23:59:59.999Z")).toEqual({ at: new Date("9999-12-31T23:59:59.999Z"), dateOnly: false });
    expect(rangeEndExclusive(parseIsoDate("9999-12-31")!).toISOString()).toBe("9999-12-31T23:59:59.999Z");
    expect(rangeEndExclusive(parseIsoDate("9999-12-31T23:59:59.999Z")!).toISOString()).toBe("9999-12-31T23:59:59.999Z");
  });

  test("a date as a range end covers the whole UTC day", () => {
    expect(rangeEndExclusive(parseIsoDate("2024-05-31")!)).toEqual(new Date("2024-06-01T00:00:00.000Z"));
    expect(rangeEndExclusive(parseIsoDate("2024-05-31T10:00:00Z")!)).toEqual(new Date("2024-05-31T10:00:00.001Z"));
    expect(startOfUtcDay(new Date("2024-05-31T23:59:59.999Z"))).toEqual(new Date("2024-05-31T00:00:00.000Z"));
  });
});

import { describe, expect, test } from "bun:test";
import { RETRY_JITTER, retryDelay } from "../../domain/retryDelay.ts";

const schedule = [5_000, 300_000, 1_800_000];

describe("retryDelay", () => {
  test.each([
    [1, 5_000],
    [2, 300_000],
    [3, 1_800_000],
  ])("after attempt %i the scheduled delay is the floor (%i ms)", (attempt, delay) => {
    expect(retryDelay(schedule, attempt, () => 0)).toBe(delay);
  });

  test("at most 10% is added", () => {
    expect(retryDelay(schedule, 2, () => 0.999999)).toBe(300_000 + Math.floor(300_000 * RETRY_JITTER * 0.999999));
    expect(retryDelay(schedule, 2, () => 1)).toBe(330_000);
    expect(retryDelay(schedule, 2, () => 0.5)).toBe(315_000);
  });

  test("a random source out of [0, 1] is clamped", () => {
    expect(retryDelay(schedule, 1, () => -3)).toBe(5_000);
    expect(retryDelay(schedule, 1, () => 7)).toBe(5_500);
  });

  test("spreads retries that failed at the same time", () => {
    const delays = new Set(Array.from({ length: 200 }, () => retryDelay(schedule, 3)));
    expect(delays.size).toBeGreaterThan(150);
    for (const d of delays) {
      expect(d!).toBeGreaterThanOrEqual(1_800_000);
      expect(d!).toBeLessThanOrEqual(1_980_000);
    }
  });

  test.each([0, -1, 4, 1.5, Number.NaN])("no retry after attempt %p (schedule used up or not an attempt)", (attempt) => {
    expect(retryDelay(schedule, attempt)).toBeNull();
  });

  test("an empty schedule never retries", () => {
    expect(retryDelay([], 1)).toBeNull();
  });

  test("a zero delay stays zero", () => {
    expect(retryDelay([0], 1, () => 1)).toBe(0);
  });
});

import { expect, test } from "bun:test";
import { cappedBackoff, defaultJobOptions, RETRY_CAP_MS } from "../../jobs/queues.ts";

test("retries double from half a second and never wait more than a minute", () => {
  expect([1, 2, 3, 4, 5, 6, 7].map(cappedBackoff)).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000]);
  expect(cappedBackoff(8)).toBe(RETRY_CAP_MS);
  expect(cappedBackoff(200)).toBe(RETRY_CAP_MS);
  expect(cappedBackoff(10_000)).toBe(RETRY_CAP_MS); // 2 ** 9999 is Infinity: still capped
});

// BUG: 8 tries over about a minute: a database outage longer than that killed a reconcile
// job, whose work nothing prompts again (dispatch had moved its cursor past the evidence).
test("a job outlasts a database outage of hours before it gives up", () => {
  let waited = 0;
  for (let made = 1; made < defaultJobOptions.attempts; made++) waited += cappedBackoff(made);
  expect(waited).toBeGreaterThan(3 * 3_600_000);
  expect(defaultJobOptions.backoff.type).toBe("capped");
});

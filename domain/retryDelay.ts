/** The most a retry is pushed past its scheduled delay, as a fraction of that delay. */
export const RETRY_JITTER = 0.1;

/**
 * The wait before retry `attemptNumber + 1` after attempt `attemptNumber` failed, or
 * null when the schedule is used up. The schedule is a floor: up to 10% is added at
 * random so deliveries that failed together (an endpoint down for everyone) do not
 * all come back in the same instant.
 */
export function retryDelay(scheduleMs: readonly number[], attemptNumber: number, random: () => number = Math.random): number | null {
  if (!Number.isInteger(attemptNumber) || attemptNumber < 1 || attemptNumber > scheduleMs.length) return null;
  const base = scheduleMs[attemptNumber - 1]!;
  const r = Math.min(Math.max(random(), 0), 1);
  return base + Math.floor(base * RETRY_JITTER * r);
}

import { RateUnavailableError } from "../domain/errors.ts";
import { parseRatesResponse } from "./parseRatesResponse.ts";
import type { RatesProvider, RatesSnapshot } from "./types.ts";

export type HttpRatesOptions = {
  url: string;
  timeoutMs: number;
  /** Fetched rates are reused this long before the source is asked again. */
  cacheTtlMs: number;
  /** Rates older than this (by the source's timestamp) are stale. */
  maxAgeMs: number;
  /** After a failed fetch, the source is not asked again for this long (defaults to min(TTL, 15 s)). */
  retryAfterMs?: number;
  fetch?: typeof fetch;
  now?: () => Date;
  onError?: (error: unknown) => void;
};

type Cached = { rates: Record<string, string>; updatedAt: Date; fetchedAt: number };

/**
 * Rates from an HTTP source, cached in memory for `cacheTtlMs`, one request at a time.
 * Past the TTL the cached rates are served while the source is asked again in the
 * background (stale-while-revalidate); only a caller with no rates, or stale ones, waits.
 * When the source fails, the last good rates keep being served (with `stale` once they
 * pass `maxAgeMs`); with none at all, `current()` throws RateUnavailableError.
 */
export function createHttpRatesProvider(options: HttpRatesOptions): RatesProvider {
  const doFetch = options.fetch ?? fetch;
  const now = options.now ?? (() => new Date());
  const retryAfterMs = options.retryAfterMs ?? Math.min(options.cacheTtlMs, 15_000);
  const source = new URL(options.url).host;
  let cached: Cached | null = null;
  let lastFailure: { at: number; message: string } | null = null;
  let inflight: Promise<void> | null = null;

  async function refresh(): Promise<void> {
    try {
      const response = await doFetch(options.url, { signal: AbortSignal.timeout(options.timeoutMs), headers: { accept: "application/json" } });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      let json: unknown;
      try {
        json = await response.json();
      } catch {
        throw new Error("response is not valid JSON");
      }
      const parsed = parseRatesResponse(json);
      const fetchedAt = now().getTime();
      // A source clock ahead of ours must not make rates look newer than the moment we got them.
      const updatedAt = parsed.updatedAt && parsed.updatedAt.getTime() <= fetchedAt ? parsed.updatedAt : new Date(fetchedAt);
      // A lagging mirror's older copy does not replace newer rates (it would turn them stale early).
      cached = cached && updatedAt < cached.updatedAt ? { ...cached, fetchedAt } : { rates: parsed.rates, updatedAt, fetchedAt };
      lastFailure = null;
    } catch (error) {
      const e = error as Error;
      const message = e.name === "TimeoutError" || e.name === "AbortError" ? `no answer within ${options.timeoutMs} ms` : e.message;
      lastFailure = { at: now().getTime(), message };
      options.onError?.(error);
    }
  }

  const snapshot = (c: Cached): RatesSnapshot => ({
    base: "USD",
    rates: { ...c.rates },
    updatedAt: c.updatedAt,
    source,
    stale: now().getTime() - c.updatedAt.getTime() > options.maxAgeMs,
  });

  return {
    source,
    async current() {
      const at = now().getTime();
      // Rates that turned stale inside the TTL (the source's time, not our fetch, ages them) are
      // asked for again once retryAfter has passed since the fetch: the source may have newer ones.
      const fresh = cached && at - cached.fetchedAt < options.cacheTtlMs && !(snapshot(cached).stale && at - cached.fetchedAt >= retryAfterMs);
      const backingOff = lastFailure && at - lastFailure.at < retryAfterMs;
      if (!fresh && !backingOff) {
        inflight ??= refresh().finally(() => (inflight = null));
        // Rates still within their age are served at once while the source is asked (a slow
        // or hanging source must not hold a payment's creation); none, or stale ones, wait for it.
        if (!cached || snapshot(cached).stale) await inflight;
      }
      if (!cached) throw new RateUnavailableError(`Exchange rates are unavailable: ${source} failed (${lastFailure?.message ?? "no answer yet"}).`);
      return snapshot(cached);
    },
  };
}

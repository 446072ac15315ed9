import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { Gauge } from "prom-client";
import type { Db } from "../db/client.ts";
import { releaseLease, takeLease } from "../db/leases.ts";
import { withTimeout } from "../domain/withTimeout.ts";
import { registry } from "./registry.ts";

const LEASE = "metrics: shared-state gauges";
/** How long one take or renewal may wait for the database: a scrape waits for the first one at most this long. */
const ATTEMPT_TIMEOUT_MS = 1_000;

type Lease = { holds: () => boolean; firstAttempt: Promise<void> };
let current: Lease | null = null;

/**
 * Gauges of state every worker shares (queue depths in Redis, transfers out in Postgres) are
 * exported by one worker at a time: the holder of a lease in Postgres, taken for `ttlMs` and
 * renewed every third of it. The others leave those series out, so a sum over the workers'
 * scrapes is the true value, not one copy of it per worker. When the holder dies its lease runs
 * out and the next worker to try takes it; one stopping gives it up at once. Returns the stop.
 */
export function startSharedGaugeLease(db: Db, ttlMs: number): () => Promise<void> {
  const holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  // Until then this process holds it, by the database's count from when the take was sent (never later than the database's own expiry).
  let heldUntil = 0;
  let inFlight: Promise<void> | null = null;
  const attempt = () => {
    inFlight ??= (async () => {
      const sentAt = Date.now();
      const left = await withTimeout(takeLease(db, LEASE, holder, ttlMs), ATTEMPT_TIMEOUT_MS, "metrics lease").catch(() => null);
      heldUntil = left === null ? 0 : sentAt + left;
    })().finally(() => (inFlight = null));
    return inFlight;
  };
  const lease: Lease = { holds: () => Date.now() < heldUntil, firstAttempt: attempt() };
  const timer = setInterval(() => void attempt(), Math.max(500, Math.floor(ttlMs / 3)));
  timer.unref?.();
  current = lease;
  return async () => {
    clearInterval(timer);
    await inFlight;
    if (current === lease) current = null;
    const held = lease.holds();
    heldUntil = 0;
    if (held) await withTimeout(releaseLease(db, LEASE, holder), ATTEMPT_TIMEOUT_MS, "metrics lease release").catch(() => {});
  };
}

/**
 * Whether this process exports the shared-state gauges now: it holds the lease (its first try
 * is waited for), or no lease runs here (a process alone exports what it watches).
 */
export async function exportsSharedGauges(): Promise<boolean> {
  const lease = current;
  if (!lease) return true;
  await lease.firstAttempt;
  return lease.holds();
}

new Gauge({
  name: "stablepay_shared_gauges_exporter",
  help: "1 on the worker that exports the gauges of shared state (queue depths, transfers out) now, 0 on the others: their sum over the workers is 1.",
  registers: [registry],
  async collect() {
    this.reset();
    if (current) this.set((await exportsSharedGauges()) ? 1 : 0);
  },
});

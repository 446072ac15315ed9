import type { Config } from "../config/index.ts";
import type { Db } from "../db/client.ts";
import { watchQueues } from "../metrics/queueMetrics.ts";
import { startSharedGaugeLease } from "../metrics/sharedGaugeLease.ts";
import { watchTransfersOut } from "../metrics/transferMetrics.ts";
import { openAllQueues } from "./queues.ts";

/**
 * What a worker reports beside its jobs' own metrics: every queue's depth and failures
 * (read from Redis at scrape time) and the sweeps/refunds in flight or stuck (from
 * Postgres), while it holds the shared-gauges lease (one worker of many reports them).
 * Returns the function that stops it and closes its queue handles.
 */
export function watchWorkerMetrics(config: Config, db: Db): () => Promise<void> {
  // Fail-fast handles: with Redis down a scrape must not wait for it (see `watchQueues`).
  const queues = openAllQueues(config, { failFast: true });
  const unwatchQueues = watchQueues(queues);
  const unwatchTransfers = watchTransfersOut(config, db);
  // Both describe what every worker shares: one worker at a time reports them.
  const stopLease = startSharedGaugeLease(db, config.metrics.sharedLeaseMs);
  return async () => {
    await stopLease();
    unwatchQueues();
    unwatchTransfers();
    await Promise.all(queues.map((q) => q.close()));
  };
}

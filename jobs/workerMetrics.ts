import type { Config } from "../config/index.ts";
import type { Db } from "../db/client.ts";
import { watchQueues } from "../metrics/queueMetrics.ts";
import { watchTransfersOut } from "../metrics/transferMetrics.ts";
import { openAllQueues } from "./queues.ts";

/**
 * What a worker reports beside its jobs' own metrics: every queue's depth and failures
 * (read from Redis at scrape time) and the sweeps/refunds in flight or stuck (from
 * Postgres). Returns the function that stops it and closes its queue handles.
 */
export function watchWorkerMetrics(config: Config, db: Db): () => Promise<void> {
  // Fail-fast handles: with Redis down a scrape must not wait for it (see `watchQueues`).
  const queues = openAllQueues(config, { failFast: true });
  const unwatchQueues = watchQueues(queues);
  const unwatchTransfers = watchTransfersOut(config, db);
  return async () => {
    unwatchQueues();
    unwatchTransfers();
    await Promise.all(queues.map((q) => q.close()));
  };
}

import type { Queue } from "bullmq";
import { Gauge } from "prom-client";
import { withTimeout } from "../domain/withTimeout.ts";
import { registry } from "./registry.ts";
import { exportsSharedGauges } from "./sharedGaugeLease.ts";

/** Job states reported per queue: the depth (`waiting`, `prioritized`, `delayed`), the work in hand, the failures. */
const STATES = ["waiting", "prioritized", "delayed", "active", "failed", "waiting-children"] as const;

const watched = new Set<Queue>();
/** How long a scrape waits for a queue's counts. */
const COUNT_TIMEOUT_MS = 1_000;

/** BullMQ's own counts (`getJobCounts`), read from Redis at each scrape by the worker holding the shared-gauges lease. */
new Gauge({
  name: "stablepay_queue_jobs",
  help: "Jobs in each BullMQ queue by state (waiting, prioritized, delayed, active, failed, waiting-children), read at scrape time.",
  labelNames: ["queue", "state"] as const,
  registers: [registry],
  async collect() {
    this.reset();
    // Redis is every worker's: one of them reports it (sharedGaugeLease.ts).
    if (!(await exportsSharedGauges())) return;
    await Promise.all(
      [...watched].map(async (queue) => {
        // Redis down (BullMQ waits for its connection however the client is set up): this queue's
        // series are absent from this scrape; the rest of the page still answers.
        const counts = await withTimeout(queue.getJobCounts(...STATES), COUNT_TIMEOUT_MS, `${queue.name} job counts`).catch(() => null);
        if (counts) for (const state of STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
      }),
    );
  },
});

/**
 * Reports these queues' depths from now on; the returned function stops it. Open them fail-fast
 * (`openAllQueues(config, { failFast: true })`): counts asked while Redis is down do not pile up
 * in the client's offline queue.
 */
export function watchQueues(queues: Queue[]): () => void {
  for (const q of queues) watched.add(q);
  return () => {
    for (const q of queues) watched.delete(q);
  };
}

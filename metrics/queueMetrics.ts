import type { Queue } from "bullmq";
import { Gauge } from "prom-client";
import { registry } from "./registry.ts";

/** Job states reported per queue: the depth (`waiting`, `prioritized`, `delayed`), the work in hand, the failures. */
const STATES = ["waiting", "prioritized", "delayed", "active", "failed", "waiting-children"] as const;

const watched = new Set<Queue>();

/** BullMQ's own counts (`getJobCounts`), read from Redis at each scrape. */
new Gauge({
  name: "stablepay_queue_jobs",
  help: "Jobs in each BullMQ queue by state (waiting, prioritized, delayed, active, failed, waiting-children), read at scrape time.",
  labelNames: ["queue", "state"] as const,
  registers: [registry],
  async collect() {
    this.reset();
    await Promise.all(
      [...watched].map(async (queue) => {
        const counts = await queue.getJobCounts(...STATES);
        for (const state of STATES) this.set({ queue: queue.name, state }, counts[state] ?? 0);
      }),
    );
  },
});

/** Reports these queues' depths from now on; the returned function stops it. */
export function watchQueues(queues: Queue[]): () => void {
  for (const q of queues) watched.add(q);
  return () => {
    for (const q of queues) watched.delete(q);
  };
}

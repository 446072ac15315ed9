import type { Job } from "bullmq";
import { allRails, type RailContext } from "../rails/index.ts";
import type { JobPayloads } from "./queues.ts";

/**
 * `replenish`: every rail restocks what payment creation draws on (Solana's deposit
 * addresses). Periodic, and prompted by a create that found nothing left. Each rail's own
 * is idempotent; one rail failing does not keep the others from theirs.
 */
export const replenish = (ctx: RailContext) => async (_job: Job<JobPayloads["replenish"]>) => {
  const done: string[] = [];
  const failures: Error[] = [];
  for (const rail of allRails()) {
    if (!rail.replenish) continue;
    try {
      const what = await rail.replenish(ctx);
      if (what) {
        done.push(`${rail.name}: ${what}`);
        ctx.logger.info({ rail: rail.name }, what);
      }
    } catch (error) {
      failures.push(error as Error);
    }
  }
  if (failures.length > 0) throw failures[0];
  return { done };
};

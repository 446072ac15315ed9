import type { Job } from "bullmq";
import { allRails, type RailContext } from "../rails/index.ts";
import type { JobPayloads } from "./queues.ts";

/**
 * `replenish`: every rail restocks what payment creation draws on (Solana's deposit
 * addresses). Periodic, and prompted by a create that found nothing left. Each rail's own is
 * idempotent; a rail that fails (a worker without SOLANA_DEPOSIT_SEED, the database away) is
 * logged and tried again by the next period, not retried on its own: a retry chain per period
 * would pile up behind a failure that lasts.
 */
export const replenish = (ctx: RailContext) => async (_job: Job<JobPayloads["replenish"]>) => {
  const done: string[] = [];
  for (const rail of allRails()) {
    if (!rail.replenish) continue;
    try {
      const what = await rail.replenish(ctx);
      if (what) {
        done.push(`${rail.name}: ${what}`);
        ctx.logger.info({ rail: rail.name }, what);
      }
    } catch (error) {
      ctx.logger.error({ err: error, rail: rail.name }, "could not restock what payment creation draws on; creates may answer 503 until it can");
    }
  }
  return { done };
};

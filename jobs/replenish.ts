import type { Job } from "bullmq";
import { stockedMethods, type RailContext } from "../rails/index.ts";
import type { JobPayloads } from "./queues.ts";

/**
 * `replenish`: every payment method that stocks restocks what payment creation draws on (Solana's deposit
 * addresses). Periodic, and prompted by a create that found nothing left. Each one's own is
 * idempotent; one that fails (a worker without SOLANA_DEPOSIT_SEED, the database away) is
 * logged and tried again by the next period, not retried on its own: a retry chain per period
 * would pile up behind a failure that lasts.
 */
export const replenish = (ctx: RailContext) => async (_job: Job<JobPayloads["replenish"]>) => {
  const done: string[] = [];
  for (const { name, method } of stockedMethods(ctx.config)) {
    try {
      const what = await method.replenish(ctx);
      if (what) {
        done.push(`${name}: ${what}`);
        ctx.logger.info({ method: name }, what);
      }
    } catch (error) {
      ctx.logger.error({ err: error, method: name }, "could not restock what payment creation draws on; creates may answer 503 until it can");
    }
  }
  return { done };
};

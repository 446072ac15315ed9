import type { Queue } from "bullmq";
import type Redis from "ioredis";
import type { ChainStatusService } from "../rails/chainStatus.ts";
import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import type { HeadCache } from "./services/headCache.ts";

/** Everything the HTTP layer needs, built once by the process entry point (or a test). */
export type ApiDeps = {
  config: Config;
  db: Db;
  redis: Redis;
  logger: Logger;
  chainStatus: ChainStatusService;
  /** Producer for reconcile/expire prompts (enqueued after commit). */
  reconcileQueue: Queue;
  /** Producer for sweep/refund prompts. */
  transfersQueue: Queue;
  indexedHead: HeadCache;
  startedAt: Date;
};

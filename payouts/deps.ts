import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import type { Prompts } from "../domain/prompts.ts";

/** What refunds and their requests need: the configuration, the database, a logger, and the prompts that wake the refund job. */
export type PayoutDeps = { config: Config; db: Db; logger: Logger; prompts: Prompts };

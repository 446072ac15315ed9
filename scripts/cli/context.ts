import type { Config } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";

/** What every CLI command runs with: the database, the configuration and a logger (to stderr). */
export type CliContext = { db: Db; config: Config; databaseUrl: string; logger: Logger };

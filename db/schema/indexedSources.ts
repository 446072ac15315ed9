/**
 * Where each EVM chain's indexed rows are read from: the Postgres schema of that chain's
 * Ponder (one Ponder per chain, `INDEXER_SCHEMA`_<chainId>), or of the single Ponder that
 * indexed every chain before. The indexer role keeps it and builds the views schema's
 * `UNION ALL` views from it (`rails/evm/readModel/indexedViews.ts`); a chain moves to a new
 * schema only once that schema's Ponder is ready, so a re-index never hides evidence.
 */
import { pgTable, text, timestamp } from "drizzle-orm/pg-core";

export const indexedSources = pgTable("indexed_sources", {
  chainId: text("chain_id").primaryKey(),
  schema: text("schema").notNull(),
  since: timestamp("since", { withTimezone: true }).notNull().defaultNow(),
});

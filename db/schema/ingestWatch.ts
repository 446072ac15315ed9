/**
 * What the worker's periodic watch last saw of each chain's ingest (the EVM indexer, the
 * Solana subscriber) against the chain's own head. Expiry reads it: a payment does not
 * expire while the chain's evidence may be incomplete, and a stall extends the open
 * payments' expiry by the time it lasted.
 */
import { pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { amount } from "./columns.ts";

export const ingestWatch = pgTable("ingest_watch", {
  chainId: text("chain_id").primaryKey(),
  /** The last check that found ingest at the chain's head: every block stamped before it was read. */
  caughtUpAt: timestamp("caught_up_at", { withTimezone: true }),
  /** Set while ingest is more than INDEXER_MAX_LAG_BLOCKS behind (or the node cannot be read): when that began. */
  stalledSince: timestamp("stalled_since", { withTimezone: true }),
  /** Blocks (slots) behind at the last check; null when the head could not be read. */
  lag: amount("lag"),
  checkedAt: timestamp("checked_at", { withTimezone: true }).notNull(),
});

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

/**
 * Evidence the EVM indexer removed (Ponder rolling back a reorg deletes the rows above the
 * common ancestor, and leaves its checkpoint where it was until it has read the new
 * branch), per chain: the indexer's latest checkpoint when the rows went. Until the
 * checkpoint has moved past it, the chain is being re-read: answers there stand. Written
 * by a trigger on the indexer's tables (`rails/evm/readModel/noteRemovals.ts`).
 */
export const indexedRemovals = pgTable("indexed_removals", {
  chainId: text("chain_id").primaryKey(),
  checkpoint: text("checkpoint").notNull(),
  notedAt: timestamp("noted_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * The books of the `local` bridge's relayer (`rails/bridge/local/`): the sandbox's own bridge
 * between local chains. A third party in all but code: the service reads its requests only
 * through the adapter, and verifies every leg on chain itself.
 */
import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { amount, createdAt } from "./columns.ts";

/** The relayer's ForwarderFactory on each chain: deposit addresses are its CREATE2 forwarders. */
export const localBridgeFactories = pgTable("local_bridge_factories", {
  chainId: text("chain_id").primaryKey(),
  /** The relayer account that deployed it and alone may sweep its forwarders. */
  relayer: text("relayer").notNull(),
  address: text("address").notNull(),
  createdAt: createdAt(),
});

/** A quote: one deposit address, what it takes and what it pays. Amounts in smallest units. */
export const localBridgeRequests = pgTable(
  "local_bridge_requests",
  {
    id: uuid("id").primaryKey(),
    /** The quoting party's reference (the service's payment id). */
    reference: text("reference").notNull(),
    originChainId: text("origin_chain_id").notNull(),
    originToken: text("origin_token").notNull(),
    destinationChainId: text("destination_chain_id").notNull(),
    destinationToken: text("destination_token").notNull(),
    recipient: text("recipient").notNull(),
    depositAddress: text("deposit_address").notNull(),
    /** What the recipient receives, destination token units. */
    amount: amount("amount").notNull(),
    /** What a deposit must be, origin token units: `amount` converted (rounded up) plus `fee`. */
    amountToSend: amount("amount_to_send").notNull(),
    fee: amount("fee").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    /**
     * `open` (waiting for a deposit) → `filling` → `filled`; `refunding` → `refunded` when a
     * deposit is returned instead (underpaid, late, refund asked for); `failed` when the fill
     * itself failed (its deposit is refunded).
     */
    state: text("state", { enum: ["open", "filling", "filled", "refunding", "refunded", "failed"] }).notNull().default("open"),
    /** The quoting party asked for refunds: every deposit goes back, none is filled. */
    refundRequested: boolean("refund_requested").notNull().default(false),
    /** Origin blocks up to here have been scanned for deposits. */
    scannedBlock: amount("scanned_block").notNull(),
    /** Every deposit stamped at or before this time is recorded (the scanned block's time, or the scan's less the arrival margin at the head). */
    scannedThrough: timestamp("scanned_through", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("local_bridge_requests_active_idx").on(t.createdAt).where(sql`state in ('open', 'filling', 'refunding', 'failed')`)],
);

/** Every transfer of the origin token into a deposit address: money in. */
export const localBridgeDeposits = pgTable(
  "local_bridge_deposits",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    requestId: uuid("request_id")
      .notNull()
      .references(() => localBridgeRequests.id),
    chainId: text("chain_id").notNull(),
    txHash: text("tx_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    sender: text("sender").notNull(),
    amount: amount("amount").notNull(),
    blockNumber: amount("block_number").notNull(),
    blockTimestamp: timestamp("block_timestamp", { withTimezone: true }).notNull(),
    /** What the relayer decided: `fill` (pays the request; any excess refunded) or `refund` (all of it goes back). */
    disposition: text("disposition", { enum: ["fill", "refund"] }),
    reason: text("reason"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("local_bridge_deposits_log_idx").on(t.chainId, t.txHash, t.logIndex), index("local_bridge_deposits_request_idx").on(t.requestId)],
);

/**
 * Money out, one row per relayer transaction, written (signed, with its hash) before it is
 * broadcast: `fill` pays the recipient on the destination chain from the relayer's liquidity,
 * `collect` sweeps a filled deposit to the relayer, `refund` returns a deposit (or its
 * excess) to its sender. At most one live row per deposit and kind.
 */
export const localBridgeTransfers = pgTable(
  "local_bridge_transfers",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    requestId: uuid("request_id")
      .notNull()
      .references(() => localBridgeRequests.id),
    depositId: uuid("deposit_id")
      .notNull()
      .references(() => localBridgeDeposits.id),
    kind: text("kind", { enum: ["fill", "collect", "refund"] }).notNull(),
    chainId: text("chain_id").notNull(),
    token: text("token").notNull(),
    toAddress: text("to_address").notNull(),
    amount: amount("amount").notNull(),
    /** `planned` (nothing signed) → `signed` (raw transaction and hash stored, maybe broadcast) → `confirmed` | `failed`. */
    status: text("status", { enum: ["planned", "signed", "confirmed", "failed"] }).notNull().default("planned"),
    fromAddress: text("from_address"),
    nonce: integer("nonce"),
    rawTx: text("raw_tx"),
    txHash: text("tx_hash"),
    blockNumber: amount("block_number"),
    error: text("error"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("local_bridge_transfers_once_idx").on(t.depositId, t.kind).where(sql`status <> 'failed'`),
    index("local_bridge_transfers_request_idx").on(t.requestId),
    index("local_bridge_transfers_nonce_idx").on(t.chainId, t.fromAddress, t.nonce).where(sql`nonce is not null`),
  ],
);

export type LocalBridgeRequestRow = typeof localBridgeRequests.$inferSelect;
export type LocalBridgeDepositRow = typeof localBridgeDeposits.$inferSelect;
export type LocalBridgeTransferRow = typeof localBridgeTransfers.$inferSelect;

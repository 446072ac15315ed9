/** Cross-chain payments: each one's bridge request, and the destination fills claimed as its credits. */
import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { BRIDGE_PROGRESS, BRIDGE_STATUSES } from "../../domain/bridgeStatus.ts";
import { amount, createdAt } from "./columns.ts";
import { payments } from "./payments.ts";

/**
 * The bridge request behind a cross-chain payment (one per payment): where the customer
 * pays on the origin chain, what the bridge last said, and each leg's transactions. The
 * origin amounts here are verified from receipts on the origin chain; the destination
 * leg is the payment's credit (`bridge_fills`), verified on the merchant's chain.
 */
export const bridgeRequests = pgTable(
  "bridge_requests",
  {
    paymentId: uuid("payment_id")
      .primaryKey()
      .references(() => payments.id, { onDelete: "cascade" }),
    /** The adapter that quoted it: `relay` or `local`. */
    adapter: text("adapter", { enum: ["relay", "local"] }).notNull(),
    /** The bridge's id of the request. */
    requestId: text("request_id").notNull(),
    originChainId: text("origin_chain_id").notNull(),
    originTokenSymbol: text("origin_token_symbol").notNull(),
    originTokenAddress: text("origin_token_address").notNull(),
    originTokenDecimals: integer("origin_token_decimals").notNull(),
    /** Where the customer sends the origin funds (the spec's `relayDepositAddress`). */
    depositAddress: text("deposit_address").notNull(),
    /** What the customer sends, in the origin token's smallest units (bridge fees included). */
    amountToSend: amount("amount_to_send").notNull(),
    /** Where the bridge returns origin funds; null: to the sender of each deposit (the local adapter). */
    refundTo: text("refund_to"),
    /** The bridge's fees inside `amountToSend`, as quoted (`{total, currency, …}`, amounts as decimal strings). */
    fees: jsonb("fees").$type<Record<string, unknown>>(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    /** The bridge's own word for where the request stands (Relay's status enum). */
    progress: text("progress", { enum: BRIDGE_PROGRESS }).notNull().default("waiting"),
    bridgeStatus: text("bridge_status", { enum: BRIDGE_STATUSES }).notNull().default("awaiting_deposit"),
    /** Transactions of each leg, as the bridge reports them. */
    originTxHashes: text("origin_tx_hashes").array().notNull().default(sql`'{}'::text[]`),
    destinationTxHashes: text("destination_tx_hashes").array().notNull().default(sql`'{}'::text[]`),
    refundTxHashes: text("refund_tx_hashes").array().notNull().default(sql`'{}'::text[]`),
    /** Verified on the origin chain: what reached the deposit address, and the block time of the first deposit. */
    depositAmount: amount("deposit_amount").notNull().default(sql`0`),
    depositedAt: timestamp("deposited_at", { withTimezone: true }),
    /** Verified on the origin chain: the addresses the deposits came from (who paid; checksummed). */
    depositSenders: text("deposit_senders").array().notNull().default(sql`'{}'::text[]`),
    /** Verified on the origin chain: what the refund transactions returned. */
    refundedAmount: amount("refunded_amount").notNull().default(sql`0`),
    /** Set when the service asked the bridge to refund (the merchant closed the payment with a deposit unfilled). */
    refundRequestedAt: timestamp("refund_requested_at", { withTimezone: true }),
    failReason: text("fail_reason"),
    /** The bridge's own time of its last change, when it gives one. */
    bridgeUpdatedAt: timestamp("bridge_updated_at", { withTimezone: true }),
    /** When the service last read the bridge (the moment the read began: an older read finishing later is not recorded). */
    checkedAt: timestamp("checked_at", { withTimezone: true }),
    /**
     * Every deposit in an origin block stamped at or before this time is in what the bridge
     * last reported (null: not read yet). A payment paid through the bridge expires only once it
     * passes the deadline: a deposit made in time that the bridge has not reported yet must not
     * meet a `payment.expired`.
     */
    seenThrough: timestamp("seen_through", { withTimezone: true }),
    /** When a read last found something a merchant sees changed (the quiet period that ends the watch counts from it). */
    changedAt: timestamp("changed_at", { withTimezone: true }).notNull().defaultNow(),
    /** Set when nothing more can happen: filled and verified, refunded, or never paid long after expiry. */
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("bridge_requests_request_idx").on(t.adapter, t.requestId),
    index("bridge_requests_deposit_address_idx").on(sql`lower(${t.depositAddress})`),
    index("bridge_requests_open_idx").on(t.checkedAt).where(sql`finished_at is null`),
  ],
);

/**
 * Destination fills claimed as a cross-chain payment's credits: one transfer log of the
 * payment's token to the merchant's wallet. The key makes a log credit one payment at
 * most; the rail re-reads each one's receipt whenever it counts it (a reorged fill stops counting).
 */
export const bridgeFills = pgTable(
  "bridge_fills",
  {
    chainId: text("chain_id").notNull(),
    txHash: text("tx_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    paymentId: uuid("payment_id")
      .notNull()
      .references(() => payments.id, { onDelete: "cascade" }),
    amount: amount("amount").notNull(),
    /** The block the fill was claimed in: a node below it that has no receipt is behind, not proof of a reorg (null: claimed before this was kept). */
    blockNumber: amount("block_number"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.txHash, t.logIndex] }), index("bridge_fills_payment_idx").on(t.paymentId)],
);

export type BridgeRequestRow = typeof bridgeRequests.$inferSelect;
export type NewBridgeRequest = typeof bridgeRequests.$inferInsert;
export type BridgeFillRow = typeof bridgeFills.$inferSelect;

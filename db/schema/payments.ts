/** Payments, the evidence the service keeps beside the indexer's (submissions, sandbox simulations), dispatch cursors and idempotency keys. */
import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, numeric, pgTable, primaryKey, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { BRIDGE_STATUSES } from "../../domain/bridgeStatus.ts";
import type { SplitPaymentCall } from "../../domain/splitPayment.ts";
import { modes } from "../../domain/mode.ts";
import { paymentStatuses } from "../../domain/paymentStatus.ts";
import { amount, createdAt } from "./columns.ts";
import { merchants } from "./merchants.ts";

export const payments = pgTable(
  "payments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id),
    mode: text("mode", { enum: modes }).notNull(),
    isTest: boolean("is_test").notNull().default(false),
    /**
     * `payment`: settlement contract (and QR to its deposit address); `deposit`: deposit address only;
     * `cross_chain`: paid on another chain and bridged to the merchant's wallet (its request in `bridge_requests`).
     * `x402`: an agent paid the merchant's wallet per request through the x402 facilitator (its authorization in `x402_settlements`).
     */
    kind: text("kind", { enum: ["payment", "deposit", "cross_chain", "x402"] }).notNull().default("payment"),
    status: text("status", { enum: paymentStatuses }).notNull().default("pending"),
    /** Amount owed, in the token's smallest unit. */
    amount: amount("amount").notNull(),
    amountReceived: amount("amount_received").notNull().default(sql`0`),
    amountRemaining: amount("amount_remaining").notNull().default(sql`0`),
    excessOwed: amount("excess_owed").notNull().default(sql`0`),
    lateAmount: amount("late_amount").notNull().default(sql`0`),
    /** What the merchant asked for (token symbol or fiat code). */
    currency: text("currency").notNull(),
    tokenSymbol: text("token_symbol").notNull(),
    tokenAddress: text("token_address").notNull(),
    tokenDecimals: integer("token_decimals").notNull(),
    networkId: uuid("network_id").notNull(),
    chainId: text("chain_id").notNull(),
    /** Where the customer sends a plain transfer: the payment's counterfactual deposit address. */
    receiveAddress: text("receive_address"),
    /** The settlement contract the signed intent is for. */
    contractAddress: text("contract_address"),
    merchantWallet: text("merchant_wallet").notNull(),
    /** Service fee inside `amount`, paid to `feeRecipient` by the contract. */
    feeAmount: amount("fee_amount").notNull().default(sql`0`),
    feeRecipient: text("fee_recipient"),
    intentSignature: text("intent_signature"),
    intentDeadline: timestamp("intent_deadline", { withTimezone: true }),
    /**
     * The settlement contract's `splitPayment` call the service issued (the client SDK's
     * `contractCall`): its event credits the payment only with exactly these params. Null
     * where the payment is not paid through the contract.
     */
    contractCall: jsonb("contract_call").$type<SplitPaymentCall>(),
    orderId: text("order_id"),
    customerEmail: text("customer_email"),
    callbackUrl: text("callback_url"),
    /** Where the hosted checkout page sends the customer once the payment is complete, and where to go back to instead. */
    successUrl: text("success_url"),
    cancelUrl: text("cancel_url"),
    /** The merchant's own data: a flat map of strings on cross-chain payments, any bounded JSON object on the others. */
    metadata: jsonb("metadata").$type<Record<string, unknown>>().notNull().default({}),
    agentId: text("agent_id"),
    /** Who is accountable for the agent (the MCP server's `agentOwner`), recorded beside its id. */
    agentOwner: text("agent_owner"),
    /** Set when the merchant priced the payment in fiat: what was asked, in that currency's units. */
    fiatAmount: numeric("fiat_amount", { mode: "string" }),
    fiatCurrency: text("fiat_currency"),
    /** Fiat units per one US dollar (= one token unit of a USD stablecoin) used at creation. */
    exchangeRate: numeric("exchange_rate", { mode: "string" }),
    exchangeRateSource: text("exchange_rate_source"),
    exchangeRateAt: timestamp("exchange_rate_at", { withTimezone: true }),
    /**
     * The merchant's settlement currency at creation when not USD, and its units per US dollar
     * then (null if no fresh rate was to be had): statistics value the payment at that rate.
     */
    settlementCurrency: text("settlement_currency"),
    settlementRate: numeric("settlement_rate", { mode: "string" }),
    confirmations: integer("confirmations").notNull().default(0),
    /** Transaction of the credit that completed the amount. */
    completingTxHash: text("completing_tx_hash"),
    completingBlock: amount("completing_block"),
    /**
     * The newest block holding a credit of the payment (on time or late; null: none on a chain).
     * A reorg that rewrites blocks above it, or a recheck until it is final, looks at the
     * payment again: money it removes is taken off whatever the payment's status.
     */
    evidenceBlock: amount("evidence_block"),
    /** How the completing credit arrived: the contract paid the merchant, the deposit address holds it, or a bridge filled the merchant's wallet. */
    completedVia: text("completed_via", { enum: ["settlement", "transfer", "submission", "simulation", "bridge"] }),
    /** Cross-chain payments: the bridge's public progress (a copy of `bridge_requests.bridge_status`, so status reads need no join). */
    bridgeStatus: text("bridge_status", { enum: BRIDGE_STATUSES }),
    detectedAt: timestamp("detected_at", { withTimezone: true }),
    confirmedAt: timestamp("confirmed_at", { withTimezone: true }),
    /** Set by `/payments/fail`: the merchant closed the payment. */
    closedStatus: text("closed_status", { enum: ["failed", "cancelled", "expired"] }),
    closedReason: text("closed_reason"),
    closedAt: timestamp("closed_at", { withTimezone: true }),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    reconciledAt: timestamp("reconciled_at", { withTimezone: true }),
    /**
     * When the deposit address's sweeps confirmed reached the amount (null: owed, or nothing
     * to sweep); cleared when a reorg takes one back. The recheck's "sweeps owed" reads only
     * payments without it, by index, not every completed payment ever made.
     */
    sweptAt: timestamp("swept_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("payments_merchant_created_idx").on(t.merchantId, t.mode, t.createdAt, t.id),
    index("payments_open_idx").on(t.chainId, t.status).where(sql`status in ('pending', 'confirming')`),
    index("payments_receive_address_idx").on(t.chainId, sql`lower(${t.receiveAddress})`),
    // The EVM indexer's watched set: receive addresses of a chain by expiry (rails/evm/ingest/).
    index("payments_watched_idx").on(t.chainId, t.expiresAt).where(sql`receive_address is not null`),
    index("payments_expiry_idx").on(t.expiresAt).where(sql`status = 'pending'`),
    // The open-payment cap counts a merchant's pending payments per mode (api/services/openPaymentCap.ts).
    index("payments_merchant_pending_idx").on(t.merchantId, t.mode).where(sql`status = 'pending'`),
    // Dispatch looks up the payments completed by recent blocks on every block.
    index("payments_completing_block_idx").on(t.chainId, t.completingBlock).where(sql`status in ('confirming', 'completed')`),
    index("payments_evidence_block_idx").on(t.chainId, t.evidenceBlock).where(sql`evidence_block is not null`),
    index("payments_agent_created_idx").on(t.merchantId, t.mode, t.agentId, t.createdAt).where(sql`agent_id is not null`),
    // The dashboard's search by orderId and by transaction hash (db/dashboardPayments.ts), in any account's millions of rows.
    index("payments_merchant_order_idx").on(t.merchantId, t.mode, t.orderId).where(sql`order_id is not null`),
    index("payments_completing_tx_idx").on(sql`lower(${t.completingTxHash})`).where(sql`completing_tx_hash is not null`),
    // The recheck's sweeps owed: completed by transfer, not yet swept whole.
    index("payments_sweep_owed_idx").on(t.id).where(sql`status = 'completed' and completed_via = 'transfer' and swept_at is null`),
  ],
);

/**
 * Transactions a client submitted to `/payments/process`, verified from their receipt.
 * They count only until the indexer reaches their block; from then on the indexed
 * rows alone decide, so a reorged submission can never keep a credit alive.
 */
export const paymentSubmissions = pgTable(
  "payment_submissions",
  {
    paymentId: uuid("payment_id").notNull().references(() => payments.id, { onDelete: "cascade" }),
    chainId: text("chain_id").notNull(),
    txHash: text("tx_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    blockNumber: amount("block_number").notNull(),
    blockTimestamp: timestamp("block_timestamp", { withTimezone: true }).notNull(),
    amount: amount("amount").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.paymentId, t.txHash, t.logIndex] })],
);

/**
 * The sandbox's stand-in for on-chain evidence: a test payment driven to `completed`
 * gets one credit of its full amount, read by `db/credits.ts` for test payments only
 * and counted as final (fully confirmed), so `settle` makes the same transition as a real one.
 */
export const simulatedCredits = pgTable("simulated_credits", {
  paymentId: uuid("payment_id").primaryKey().references(() => payments.id, { onDelete: "cascade" }),
  txHash: text("tx_hash").notNull(),
  amount: amount("amount").notNull(),
  createdAt: createdAt(),
});

/** How far dispatch has looked at indexed rows, per chain (the safety net behind NOTIFY). */
export const dispatchCursors = pgTable("dispatch_cursors", {
  chainId: text("chain_id").primaryKey(),
  blockNumber: amount("block_number").notNull(),
  /** Digest of the indexed rows in the blocks just below the cursor: a change means a reorg rewrote them. */
  windowDigest: text("window_digest"),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/**
 * One row per (account, endpoint, key). Claimed before the work runs, so concurrent
 * duplicates wait on the row instead of creating twice; the stored response is replayed.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id, { onDelete: "cascade" }),
    mode: text("mode", { enum: modes }).notNull(),
    /** Endpoint scope, version-free (`payments.create`), so /api and /api/v1 share keys. */
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of the canonical request body. */
    requestHash: text("request_hash").notNull(),
    responseStatus: integer("response_status"),
    responseBody: jsonb("response_body"),
    /**
     * Set for a body fingerprint (no Idempotency-Key, no orderId): only this many seconds after
     * `createdAt` is an identical body a retry; later it is a new payment and claims the key anew.
     * Null: a retry for as long as the key is kept.
     */
    replayWithinSeconds: integer("replay_within_seconds"),
    createdAt: createdAt(),
  },
  // The hourly cleanup finds expired keys by age.
  (t) => [primaryKey({ columns: [t.merchantId, t.mode, t.scope, t.key] }), index("idempotency_keys_created_idx").on(t.createdAt)],
);

export type PaymentRow = typeof payments.$inferSelect;
export type NewPayment = typeof payments.$inferInsert;

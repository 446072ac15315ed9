import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { paymentEventTypes } from "../domain/paymentEvents.ts";

/** Token amounts: integers in the token's smallest unit, up to uint256. */
const amount = (name: string) => numeric(name, { precision: 78, scale: 0, mode: "bigint" });
const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();

export const merchants = pgTable("merchants", {
  id: uuid("id").primaryKey().defaultRandom(),
  name: text("name").notNull(),
  email: text("email"),
  /** Currency that statistics are reported in (USD equivalent unless configured). */
  settlementCurrency: text("settlement_currency").notNull().default("USD"),
  isNairaMerchant: boolean("is_naira_merchant").notNull().default(false),
  createdAt: createdAt(),
});

/**
 * Public keys and API key + secret pairs. Only SHA-256 hashes are stored; a key is
 * found by its hash, a secret compared in constant time. `mode` comes from the prefix.
 */
export const apiCredentials = pgTable(
  "api_credentials",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["public", "secret"] }).notNull(),
    mode: text("mode", { enum: ["test", "live"] }).notNull(),
    /** The first characters of the key, for recognising it in listings. */
    keyPrefix: text("key_prefix").notNull(),
    keyHash: text("key_hash").notNull(),
    secretHash: text("secret_hash"),
    createdAt: createdAt(),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("api_credentials_key_hash_idx").on(t.keyHash), index("api_credentials_merchant_idx").on(t.merchantId)],
);

export const settlementWallets = pgTable(
  "settlement_wallets",
  {
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id, { onDelete: "cascade" }),
    /** Stable network id from the catalogue. */
    networkId: uuid("network_id").notNull(),
    address: text("address").notNull(),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.networkId] })],
);

export const paymentStatuses = ["pending", "confirming", "completed", "expired", "failed", "cancelled"] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

export const payments = pgTable(
  "payments",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id),
    mode: text("mode", { enum: ["test", "live"] }).notNull(),
    isTest: boolean("is_test").notNull().default(false),
    /** `payment`: settlement contract (and QR to its deposit address); `deposit`: deposit address only. */
    kind: text("kind", { enum: ["payment", "deposit"] }).notNull().default("payment"),
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
    orderId: text("order_id"),
    customerEmail: text("customer_email"),
    callbackUrl: text("callback_url"),
    metadata: jsonb("metadata").$type<Record<string, string>>().notNull().default({}),
    agentId: text("agent_id"),
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
    /** How the completing credit arrived: the contract paid the merchant, or the deposit address holds it. */
    completedVia: text("completed_via", { enum: ["settlement", "transfer", "submission", "simulation"] }),
    detectedAt: timestamp("detected_at", { withTimezone: true }),
    confirmedAt: timestamp("confirmed_at", { withTimezone: true }),
    /** Set by `/payments/fail`: the merchant closed the payment. */
    closedStatus: text("closed_status", { enum: ["failed", "cancelled", "expired"] }),
    closedReason: text("closed_reason"),
    closedAt: timestamp("closed_at", { withTimezone: true }),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    reconciledAt: timestamp("reconciled_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("payments_merchant_created_idx").on(t.merchantId, t.mode, t.createdAt, t.id),
    index("payments_open_idx").on(t.chainId, t.status).where(sql`status in ('pending', 'confirming')`),
    index("payments_receive_address_idx").on(t.chainId, sql`lower(${t.receiveAddress})`),
    index("payments_expiry_idx").on(t.expiresAt).where(sql`status = 'pending'`),
    index("payments_agent_created_idx").on(t.merchantId, t.mode, t.agentId, t.createdAt).where(sql`agent_id is not null`),
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
    mode: text("mode", { enum: ["test", "live"] }).notNull(),
    /** Endpoint scope, version-free (`payments.create`), so /api and /api/v1 share keys. */
    scope: text("scope").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of the canonical request body. */
    requestHash: text("request_hash").notNull(),
    responseStatus: integer("response_status"),
    responseBody: jsonb("response_body"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.mode, t.scope, t.key] })],
);

/**
 * Moving a deposit address's funds: to the merchant (`sweep`) or back to a customer
 * (`refund`). The row is written before the transaction is broadcast and updated after,
 * so a restarted job finds what it already did and never sends twice.
 */
export const transfersOut = pgTable(
  "transfers_out",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    paymentId: uuid("payment_id").notNull().references(() => payments.id),
    kind: text("kind", { enum: ["sweep", "refund"] }).notNull(),
    /** requested → broadcast → confirmed; failed when the chain refused it (retried by a new row). */
    status: text("status", { enum: ["requested", "broadcast", "confirmed", "failed"] }).notNull().default("requested"),
    chainId: text("chain_id").notNull(),
    tokenAddress: text("token_address").notNull(),
    toAddress: text("to_address").notNull(),
    amount: amount("amount").notNull(),
    reason: text("reason"),
    /** The operator nonce the transaction was signed with, fixed before broadcast. */
    nonce: integer("nonce"),
    /** The operator address that signed it (nonces are handed out per address). */
    fromAddress: text("from_address"),
    /** The signed transaction, kept so a restart re-sends the very same one (same hash, never a second transfer). */
    rawTx: text("raw_tx"),
    txHash: text("tx_hash"),
    /** Earlier transactions of this row (same nonce, lower fees) that `txHash` replaced; any one may be the one mined. */
    replacedTxHashes: text("replaced_tx_hashes").array().notNull().default(sql`'{}'::text[]`),
    blockNumber: amount("block_number"),
    error: text("error"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("transfers_out_payment_idx").on(t.paymentId),
    // At most one sweep or refund in flight per payment: the database enforces "exactly once".
    uniqueIndex("transfers_out_one_open_idx").on(t.paymentId).where(sql`status in ('requested', 'broadcast')`),
    // The next nonce of an operator on a chain is read from here, under the chain's lock.
    index("transfers_out_nonce_idx").on(t.chainId, t.fromAddress, t.nonce).where(sql`nonce is not null`),
  ],
);

/**
 * What an agent (a program paying on the merchant's behalf, `X-Agent-Id`) may create,
 * per merchant and mode. Limits are USD decimal amounts (USD stablecoins count 1:1);
 * null means no limit, an empty list of networks or tokens means none allowed, null any.
 */
export const agentPolicies = pgTable(
  "agent_policies",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id, { onDelete: "cascade" }),
    mode: text("mode", { enum: ["test", "live"] }).notNull(),
    agentId: text("agent_id").notNull(),
    maxPerPayment: numeric("max_per_payment", { mode: "string" }),
    dailyLimit: numeric("daily_limit", { mode: "string" }),
    allowedNetworks: text("allowed_networks").array(),
    allowedTokens: text("allowed_tokens").array(),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    active: boolean("active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("agent_policies_agent_idx").on(t.merchantId, t.mode, t.agentId)],
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

/**
 * The event feed and the webhook outbox: one row per payment event, written in the
 * transaction that changed the payment, so an event exists exactly when its change
 * does. The id is the `webhook-id` of every delivery of it.
 */
export const paymentEvents = pgTable(
  "payment_events",
  {
    id: uuid("id").primaryKey(),
    /** Insert order. A payment's writers hold its row lock, so for one payment this is the order of its changes. */
    sequence: bigserial("sequence", { mode: "number" }).notNull(),
    /**
     * Position in the feed (`GET /events`), given after commit in commit order by
     * `assignFeedPositions`: a reader's cursor can never pass an event that commits later.
     */
    feedPosition: bigint("feed_position", { mode: "number" }),
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id, { onDelete: "cascade" }),
    mode: text("mode", { enum: ["test", "live"] }).notNull(),
    paymentId: uuid("payment_id").notNull().references(() => payments.id, { onDelete: "cascade" }),
    type: text("type", { enum: paymentEventTypes }).notNull(),
    /** The event's `data`: `{payment}` as it was at that moment, plus details of forwarded/refunded. */
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().default(sql`clock_timestamp()`),
  },
  (t) => [
    uniqueIndex("payment_events_sequence_idx").on(t.sequence),
    // Only positioned events: an event is inserted without a position (reads of the feed and of the
    // last position all ask for positioned ones), so inserts skip these two indexes.
    uniqueIndex("payment_events_feed_position_idx").on(t.feedPosition).where(sql`feed_position is not null`),
    index("payment_events_merchant_feed_idx").on(t.merchantId, t.mode, t.feedPosition).where(sql`feed_position is not null`),
    index("payment_events_payment_idx").on(t.paymentId, t.sequence),
    index("payment_events_unpositioned_idx").on(t.sequence).where(sql`feed_position is null`),
  ],
);

/**
 * A merchant's webhook endpoints, per mode. The secret signs every delivery, so it is
 * kept as is (a hash could not sign); it is never logged. During a rotation the
 * previous secret also signs until `previousSecretExpiresAt`.
 */
export const webhookEndpoints = pgTable(
  "webhook_endpoints",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id, { onDelete: "cascade" }),
    mode: text("mode", { enum: ["test", "live"] }).notNull(),
    url: text("url").notNull(),
    description: text("description"),
    /** Event types delivered here, or `["*"]` for all. */
    events: text("events").array().notNull().default(sql`array['*']::text[]`),
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: timestamp("previous_secret_expires_at", { withTimezone: true }),
    /** Set when the endpoint answered 410 Gone: nothing more is sent to it. */
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
    disabledReason: text("disabled_reason"),
    /** Removed by the merchant; kept so its deliveries' history stays readable. */
    deletedAt: timestamp("deleted_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("webhook_endpoints_merchant_idx").on(t.merchantId, t.mode)],
);

/**
 * The per-merchant, per-mode secret that signs deliveries to payments' `callbackUrl`s
 * (created on first use; rotated like an endpoint's).
 */
export const webhookSigningSecrets = pgTable(
  "webhook_signing_secrets",
  {
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id, { onDelete: "cascade" }),
    mode: text("mode", { enum: ["test", "live"] }).notNull(),
    secret: text("secret").notNull(),
    previousSecret: text("previous_secret"),
    previousSecretExpiresAt: timestamp("previous_secret_expires_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.mode] })],
);

/**
 * One event to one target (an endpoint, or the payment's `callbackUrl` when
 * `endpointId` is null). The row is the truth; a `webhook` job only prompts an
 * attempt, and the relay re-enqueues due rows whose job vanished.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    eventId: uuid("event_id").notNull().references(() => paymentEvents.id, { onDelete: "cascade" }),
    endpointId: uuid("endpoint_id").references(() => webhookEndpoints.id, { onDelete: "cascade" }),
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id, { onDelete: "cascade" }),
    mode: text("mode", { enum: ["test", "live"] }).notNull(),
    url: text("url").notNull(),
    /** pending → delivered (a 2xx), failed (attempts exhausted, or refused as unsafe), disabled (410, endpoint removed). */
    status: text("status", { enum: ["pending", "delivered", "failed", "disabled"] }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    /** An attempt in flight holds the row until then, so two jobs never send the same delivery at once. */
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    lastError: text("last_error"),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("webhook_deliveries_event_idx").on(t.eventId),
    index("webhook_deliveries_due_idx").on(t.nextAttemptAt).where(sql`status = 'pending'`),
    index("webhook_deliveries_endpoint_idx").on(t.endpointId).where(sql`status = 'pending'`),
  ],
);

/** Every HTTP attempt of a delivery: what came back and how long it took. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    deliveryId: uuid("delivery_id").notNull().references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    statusCode: integer("status_code"),
    latencyMs: integer("latency_ms").notNull(),
    /** The first kilobyte of the response body. */
    responseExcerpt: text("response_excerpt"),
    error: text("error"),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("webhook_attempts_delivery_idx").on(t.deliveryId, t.attempt)],
);

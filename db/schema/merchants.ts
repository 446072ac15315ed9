/** Merchants, their credentials, settlement wallets and agent policies. */
import { sql } from "drizzle-orm";
import { boolean, index, integer, numeric, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { modes } from "../../domain/mode.ts";
import { createdAt } from "./columns.ts";

export const merchants = pgTable("merchants", {
  id: uuid("id").primaryKey().defaultRandom(),
  name: text("name").notNull(),
  email: text("email"),
  /** Currency that statistics are reported in (USD equivalent unless configured). */
  settlementCurrency: text("settlement_currency").notNull().default("USD"),
  isNairaMerchant: boolean("is_naira_merchant").notNull().default(false),
  /** Hours a live settlement wallet change made in the dashboard waits before it takes effect (0: at once). */
  walletChangeDelayHours: integer("wallet_change_delay_hours").notNull().default(0),
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
    mode: text("mode", { enum: modes }).notNull(),
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
    /**
     * A delayed change (live mode, the merchant's `walletChangeDelayHours`): the address that
     * takes the place of `address` from `pendingEffectiveAt`. Reads use it from then on even
     * before the recheck moves it into `address` (`db/settlementWallets.ts`).
     */
    pendingAddress: text("pending_address"),
    pendingEffectiveAt: timestamp("pending_effective_at", { withTimezone: true }),
    /** The dashboard user who asked for the pending change. */
    pendingRequestedBy: uuid("pending_requested_by"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.merchantId, t.networkId] }),
    // The recheck finds due changes without reading every wallet.
    index("settlement_wallets_pending_idx").on(t.pendingEffectiveAt).where(sql`pending_effective_at is not null`),
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
    mode: text("mode", { enum: modes }).notNull(),
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
 * How a merchant treats agents, per mode. `unknownAgents`: `allow` (default) lets an agent
 * with no policy create payments unlimited; `deny` refuses it until a policy is PUT.
 */
export const agentSettings = pgTable(
  "agent_settings",
  {
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id, { onDelete: "cascade" }),
    mode: text("mode", { enum: modes }).notNull(),
    unknownAgents: text("unknown_agents", { enum: ["allow", "deny"] }).notNull().default("allow"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.mode] })],
);

/**
 * Where a payment created with a public key alone may send the customer back to
 * (`successUrl`, `cancelUrl`), per merchant and mode: a public key sits in browsers, so
 * without this list anyone could put the merchant's name on a checkout page that ends on
 * their own site. Each row is one origin (`https://shop.example`).
 */
export const returnOrigins = pgTable(
  "return_origins",
  {
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id, { onDelete: "cascade" }),
    mode: text("mode", { enum: modes }).notNull(),
    origin: text("origin").notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.merchantId, t.mode, t.origin] })],
);

/** x402 settlements: each authorization a resource server asked the facilitator to settle, and its outcome. */
import { sql } from "drizzle-orm";
import { bigint, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { x402SettlementStatuses } from "../../domain/x402.ts";
import { amount, createdAt } from "./columns.ts";
import { paymentOwned } from "./paymentOwned.ts";

/**
 * One row per authorization (the API writes it with its `x402` payment, in one transaction),
 * settled by the worker, which alone holds the key that pays the gas. The unique authorization
 * index is what makes an authorization settle at most once; the payment identifier (the
 * `payment-identifier` extension) makes a retried settle the same settle.
 */
export const x402Settlements = pgTable(
  "x402_settlements",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    ...paymentOwned(),
    /** The network as the requirements named it (CAIP-2 `eip155:31337`, `solana:<genesis hash>`, or x402 v1's name) and the catalogue's chain id. */
    network: text("network").notNull(),
    chainId: text("chain_id").notNull(),
    /** Token (contract or mint), payer and payee, as the chain spells addresses (checksummed on EVM). */
    asset: text("asset").notNull(),
    payer: text("payer").notNull(),
    payTo: text("pay_to").notNull(),
    amount: amount("amount").notNull(),
    /** What keys the authorization: its EIP-3009 nonce (bytes32 hex) on EVM, its transaction message's SHA-256 (hex) on Solana. */
    nonce: text("nonce").notNull(),
    /** The `payment-identifier` extension's id, when the client sent one. */
    paymentIdentifier: text("payment_identifier"),
    x402Version: integer("x402_version").notNull(),
    /** What the worker submits: the payment payload and the requirements it was verified against. */
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    requirements: jsonb("requirements").$type<Record<string, unknown>>().notNull(),
    status: text("status", { enum: x402SettlementStatuses }).notNull().default("requested"),
    /**
     * The settlement transaction, once broadcast (on Solana once signed: its id is known before
     * it is sent); once mined, where its credit is (EVM: the Transfer log's block and index;
     * Solana: the slot and the credited account's index) and what it credited the wallet.
     */
    txHash: text("tx_hash"),
    blockNumber: bigint("block_number", { mode: "bigint" }),
    blockTimestamp: timestamp("block_timestamp", { withTimezone: true }),
    logIndex: integer("log_index"),
    credited: amount("credited"),
    /** What the operator paid for its transaction, once mined (EVM: gas used × effective gas price, in wei; Solana: its fee, in lamports). */
    gasCost: amount("gas_cost"),
    /** Why it failed (x402's error reason), when it did. */
    errorReason: text("error_reason"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("x402_settlements_authorization_idx").on(t.chainId, sql`lower(${t.asset})`, sql`lower(${t.payer})`, t.nonce),
    uniqueIndex("x402_settlements_payment_identifier_idx").on(t.merchantId, t.mode, t.paymentIdentifier).where(sql`payment_identifier is not null`),
    index("x402_settlements_payment_idx").on(t.paymentId),
    // The recheck's unfinished settlements.
    index("x402_settlements_unfinished_idx").on(t.createdAt).where(sql`status in ('requested', 'submitted')`),
    // The operator's gas a merchant's settlements cost today (X402_DAILY_GAS_CAP_WEI).
    index("x402_settlements_merchant_chain_created_idx").on(t.merchantId, t.chainId, t.createdAt),
  ],
);

export type X402SettlementRow = typeof x402Settlements.$inferSelect;

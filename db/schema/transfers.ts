/** Money moved out: sweeps of deposit addresses to the merchant, and refunds to customers (from a deposit address, or relayed from the merchant's wallet). */
import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { amount, createdAt } from "./columns.ts";
import { payments } from "./payments.ts";

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
    /**
     * `native_sweep`: native coin (ETH…) sent to an EVM deposit address instead of the token,
     * forwarded to the merchant once the payment has ended (`payouts/nativeSweep.ts`). Never
     * a credit: token totals (what is swept, refunded, owed) count `sweep` and `refund` only.
     */
    kind: text("kind", { enum: ["sweep", "refund", "native_sweep"] }).notNull(),
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
    /** Solana: the blockhash the transaction was signed with, and the block height after which it can never land. */
    blockhash: text("blockhash"),
    lastValidBlockHeight: amount("last_valid_block_height"),
    /**
     * Solana: what the deposit token account held when the row's transaction was signed. It is
     * signed again only while the account holds exactly this: proof the first did not land
     * (a status lookup that finds nothing proves nothing). Null: signed before it was recorded.
     */
    sourceBalance: amount("source_balance"),
    /**
     * A refund of money the merchant's wallet received (the service holds none of it): what the
     * merchant signed for it (EVM: an EIP-3009 authorization and its signature; Solana: the
     * transaction signed by the wallet). The operator relays it and pays the fee; null for
     * transfers out of a deposit address. See `payouts/merchantSignedRefund.ts`.
     */
    merchantSigned: jsonb("merchant_signed").$type<Record<string, string>>(),
    error: text("error"),
    /** When it was first sent (replacements keep it): how long it has been out, for "stuck". */
    broadcastAt: timestamp("broadcast_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("transfers_out_payment_idx").on(t.paymentId),
    // At most one sweep or refund in flight per payment: the database enforces "exactly once".
    uniqueIndex("transfers_out_one_open_idx").on(t.paymentId).where(sql`status in ('requested', 'broadcast')`),
    // The next nonce of an operator on a chain is read from here, under the chain's lock.
    index("transfers_out_nonce_idx").on(t.chainId, t.fromAddress, t.nonce).where(sql`nonce is not null`),
    // The recheck's confirmed transfers not final yet (or in no block: a reorg removed them).
    index("transfers_out_confirmed_block_idx").on(t.chainId, t.blockNumber).where(sql`status = 'confirmed'`),
  ],
);

export type TransferOutRow = typeof transfersOut.$inferSelect;

/** The Solana rail's own rows: its deposit seed, the credits its subscriber ingests, and how far it got. */
import { sql } from "drizzle-orm";
import { bigserial, boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { amount, createdAt } from "./columns.ts";
import { payments } from "./payments.ts";

/**
 * The master seed every Solana deposit key is derived from (SLIP-0010), sealed with
 * SECRETS_KEY like webhook secrets: a database dump alone reveals no key. One row,
 * created on first use; it must never change while a deposit address holds funds.
 */
export const solanaDepositSeeds = pgTable("solana_deposit_seeds", {
  id: text("id").primaryKey(),
  sealedSeed: text("sealed_seed").notNull(),
  createdAt: createdAt(),
});

/**
 * One credit per (transaction, token account): the rise of a watched token account's
 * balance of the payment's mint in a successful transaction, read from the node's
 * pre/post token balances (never from instruction amounts). `transfer`: a deposit
 * address's token account (swept later); `settlement`: the merchant's own token account
 * in a Solana Pay transfer carrying the payment's reference.
 */
export const solanaCredits = pgTable(
  "solana_credits",
  {
    chainId: text("chain_id").notNull(),
    signature: text("signature").notNull(),
    /** The token account whose balance rose. */
    account: text("account").notNull(),
    paymentId: uuid("payment_id").notNull().references(() => payments.id, { onDelete: "cascade" }),
    source: text("source", { enum: ["transfer", "settlement"] }).notNull(),
    owner: text("owner").notNull(),
    /**
     * Who paid: the one owner whose token accounts of the mint lost balance in the
     * transaction (a refund goes back there by default). Null: not known (several such
     * owners, or a credit recorded before this was kept).
     */
    payer: text("payer"),
    mint: text("mint").notNull(),
    tokenProgram: text("token_program").notNull(),
    /** Post minus pre balance, smallest units. */
    amount: amount("amount").notNull(),
    slot: amount("slot").notNull(),
    blockTime: timestamp("block_time", { withTimezone: true }).notNull(),
    /** The account's position in the transaction's account keys (orders credits within a slot). */
    accountIndex: integer("account_index").notNull(),
    /** Seen at `finalized` commitment; until then it counts as confirming. */
    finalized: boolean("finalized").notNull().default(false),
    /** Set when the transaction is not on the finalized chain after its slot was finalized (a fork dropped it). */
    removedAt: timestamp("removed_at", { withTimezone: true }),
    /** What found it first: `poll`, `websocket`, `webhook`, `lookup` (verify-qr) or `submission` (/payments/process). */
    foundBy: text("found_by").notNull(),
    /** Advanced on every insert and change: dispatch reads the rows above its cursor. */
    seq: bigserial("seq", { mode: "bigint" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.chainId, t.signature, t.account] }),
    index("solana_credits_payment_idx").on(t.paymentId),
    uniqueIndex("solana_credits_seq_idx").on(t.seq),
    index("solana_credits_unfinalized_idx").on(t.chainId, t.slot).where(sql`not finalized and removed_at is null`),
  ],
);

/**
 * How far the subscriber got per chain: `confirmedSlot` read before its last pass over
 * the watched accounts, `finalizedSlot` the newest finalized slot below which every
 * credit has been checked at `finalized` (the rail reports it as its indexed head), and
 * `evidenceThrough` the block time of the confirmed slot read before the last poll that
 * scanned every watched account without an error: every transfer confirmed by then is
 * recorded (the rail's evidence horizon, which expiry waits for).
 */
export const solanaIngestHeads = pgTable("solana_ingest_heads", {
  chainId: text("chain_id").primaryKey(),
  confirmedSlot: amount("confirmed_slot").notNull(),
  finalizedSlot: amount("finalized_slot").notNull(),
  evidenceThrough: timestamp("evidence_through", { withTimezone: true }),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** The newest signature seen per watched address: the `until` of its next `getSignaturesForAddress`. */
export const solanaAccountCursors = pgTable(
  "solana_account_cursors",
  {
    chainId: text("chain_id").notNull(),
    address: text("address").notNull(),
    lastSignature: text("last_signature").notNull(),
    lastSlot: amount("last_slot").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.address] })],
);

export type SolanaCreditRow = typeof solanaCredits.$inferSelect;

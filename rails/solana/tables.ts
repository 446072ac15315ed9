/** The Solana rail's own rows: its deposit addresses (and the legacy sealed seed), the credits its subscriber ingests, and how far it got. */
import { sql } from "drizzle-orm";
import { bigserial, boolean, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { amount, createdAt } from "../../db/schema/columns.ts";
import { payments } from "../../db/schema/payments.ts";

/**
 * Legacy: the master seed the deposit keys of payments created before the address pool were
 * derived from (SLIP-0010 by payment id), sealed with SECRETS_KEY. Nothing creates it any
 * more; the worker opens it only to sweep or refund those payments' addresses, until the
 * operator deletes it once they are swept. See docs/decisions/deposit-keys.md.
 */
export const solanaDepositSeeds = pgTable("solana_deposit_seeds", {
  id: text("id").primaryKey(),
  sealedSeed: text("sealed_seed").notNull(),
  createdAt: createdAt(),
});

/**
 * Solana deposit addresses derived ahead of need by the worker, from SOLANA_DEPOSIT_SEED (held
 * outside the database) at `m/44'/501'/<index>'/0'`, and handed out by the API one per deposit
 * payment: the API never opens a seed. The database holds addresses only: no key can be
 * derived from it. `seedId` tells the seed an address came from (a digest of it, never the
 * seed), so a worker started with another seed never signs for these. A claimed row stays
 * claimed, even when its create failed afterwards: an address is handed out at most once.
 */
export const solanaDepositAddresses = pgTable(
  "solana_deposit_addresses",
  {
    seedId: text("seed_id").notNull(),
    index: integer("index").notNull(),
    address: text("address").notNull(),
    /** The payment it was handed out for (no foreign key: claimed before the payment's row is written). */
    paymentId: uuid("payment_id"),
    claimedAt: timestamp("claimed_at", { withTimezone: true }),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.seedId, t.index] }),
    uniqueIndex("solana_deposit_addresses_address_idx").on(t.address),
    uniqueIndex("solana_deposit_addresses_payment_idx").on(t.paymentId),
    index("solana_deposit_addresses_free_idx").on(t.index).where(sql`payment_id is null`),
  ],
);

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

/**
 * Per watched address, what the subscriber's scans know beyond its cursor:
 * - an unfinished listing (`listing*`): a listing of more than one page records each page as
 *   it comes, newest first, and keeps here how far down it got (`listingBefore*`, the oldest
 *   signature recorded), where it stops (`listingUntil`, the cursor when it began; null: the
 *   address's first listing) and its newest signature (`listingTop*`, the cursor once it is
 *   done): a failure resumes at the page it stopped on, and nothing read is thrown away;
 * - its own evidence horizon (`evidenceThrough`): the block time of the slot a poll read
 *   before a scan of this address that read everything. Expiry of the address's payment
 *   waits for it, so a failing address holds back only its own payment, not the chain.
 */
export const solanaAddressScans = pgTable(
  "solana_address_scans",
  {
    chainId: text("chain_id").notNull(),
    address: text("address").notNull(),
    /** The payment last watched at this address (health counts the open ones held back). */
    paymentId: uuid("payment_id"),
    evidenceThrough: timestamp("evidence_through", { withTimezone: true }),
    listingUntil: text("listing_until"),
    listingTopSignature: text("listing_top_signature"),
    listingTopSlot: amount("listing_top_slot"),
    listingBeforeSignature: text("listing_before_signature"),
    listingBeforeSlot: amount("listing_before_slot"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.address] }), index("solana_address_scans_payment_idx").on(t.paymentId)],
);

export type SolanaCreditRow = typeof solanaCredits.$inferSelect;

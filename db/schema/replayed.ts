/**
 * Evidence an operator's replay found that the EVM indexer had missed (an RPC outage, a
 * bug): the same rows as the indexer's `token_transfer`, `settlement_payment` and `split_payment`, kept
 * beside them rather than in them, because the indexer rolls back what it did not write
 * itself on its next reorg. Only final blocks are replayed, so these rows never need to
 * roll back. Read together with the indexer's in `rails/evm/readModel/evidence.ts`.
 */
import { index, integer, jsonb, numeric, pgTable, text } from "drizzle-orm/pg-core";

const block = (name: string) => numeric(name, { precision: 78, scale: 0 });

export const replayedTokenTransfers = pgTable(
  "replayed_token_transfer",
  {
    /** `<chainId>:<txHash>:<logIndex>`, as the indexer's. */
    id: text("id").primaryKey(),
    chainId: integer("chain_id").notNull(),
    blockNumber: block("block_number").notNull(),
    blockHash: text("block_hash").notNull(),
    txHash: text("tx_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    token: text("token").notNull(),
    from: text("from").notNull(),
    to: text("to").notNull(),
    amount: numeric("amount", { precision: 78, scale: 0 }).notNull(),
    /** Block timestamp, seconds since the epoch. */
    timestamp: block("timestamp").notNull(),
  },
  (t) => [index("replayed_token_transfer_to_idx").on(t.to, t.chainId), index("replayed_token_transfer_block_idx").on(t.chainId, t.blockNumber)],
);

export const replayedSettlementPayments = pgTable(
  "replayed_settlement_payment",
  {
    id: text("id").primaryKey(),
    chainId: integer("chain_id").notNull(),
    paymentId: text("payment_id").notNull(),
    payer: text("payer").notNull(),
    token: text("token").notNull(),
    merchant: text("merchant").notNull(),
    amount: numeric("amount", { precision: 78, scale: 0 }).notNull(),
    fee: numeric("fee", { precision: 78, scale: 0 }).notNull(),
    contract: text("contract").notNull(),
    blockNumber: block("block_number").notNull(),
    blockHash: text("block_hash").notNull(),
    txHash: text("tx_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    timestamp: block("timestamp").notNull(),
    /** As the indexer's: what the settlement's token Transfers moved. Null: replayed before it was recorded (credited at `amount`). */
    transfers: jsonb("transfers").$type<Array<{ to: string; amount: string }>>(),
  },
  (t) => [index("replayed_settlement_payment_id_idx").on(t.paymentId), index("replayed_settlement_payment_block_idx").on(t.chainId, t.blockNumber)],
);

/** The settlement contract's `SplitPaymentExecuted` events a replay found (the indexer's `split_payment`). */
export const replayedSplitPayments = pgTable(
  "replayed_split_payment",
  {
    id: text("id").primaryKey(),
    chainId: integer("chain_id").notNull(),
    key: text("key").notNull(),
    paymentId: text("payment_id").notNull(),
    payer: text("payer").notNull(),
    token: text("token").notNull(),
    amount: numeric("amount", { precision: 78, scale: 0 }).notNull(),
    received: numeric("received", { precision: 78, scale: 0 }).notNull(),
    recipient1: text("recipient1").notNull(),
    recipient2: text("recipient2").notNull(),
    recipient3: text("recipient3").notNull(),
    recipient1Percentage: integer("recipient1_percentage").notNull(),
    recipient2Percentage: integer("recipient2_percentage").notNull(),
    recipient3Percentage: integer("recipient3_percentage").notNull(),
    contract: text("contract").notNull(),
    blockNumber: block("block_number").notNull(),
    blockHash: text("block_hash").notNull(),
    txHash: text("tx_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    timestamp: block("timestamp").notNull(),
  },
  (t) => [index("replayed_split_payment_id_idx").on(t.paymentId), index("replayed_split_payment_block_idx").on(t.chainId, t.blockNumber)],
);

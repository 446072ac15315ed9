import { index, onchainTable } from "ponder";

/**
 * Every Transfer of a configured stablecoin, as indexed. Ponder rolls rows back on a
 * reorg, so this table is the chain's truth at the indexed head. Amounts are in the
 * token's smallest unit (numeric(78,0)).
 */
export const tokenTransfer = onchainTable(
  "token_transfer",
  (t) => ({
    /** `<chainId>:<txHash>:<logIndex>`: unique per log. */
    id: t.text().primaryKey(),
    chainId: t.integer().notNull(),
    blockNumber: t.bigint().notNull(),
    blockHash: t.hex().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    token: t.hex().notNull(),
    from: t.hex().notNull(),
    to: t.hex().notNull(),
    amount: t.bigint().notNull(),
    /** Block timestamp, seconds since the epoch. */
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    // Led by the address: evidence is looked up by a payment's receive address (rails/evm/readModel/evidence.ts).
    toIdx: index().on(table.to, table.chainId),
    blockIdx: index().on(table.chainId, table.blockNumber),
  }),
);

/**
 * Every `PaymentSettled` of the settlement contract: one row per paid intent. The
 * contract has already checked signature, amount, merchant and single use.
 */
export const settlementPayment = onchainTable(
  "settlement_payment",
  (t) => ({
    id: t.text().primaryKey(),
    chainId: t.integer().notNull(),
    /** The intent's bytes32 payment id (a uuid left-padded with zeros). */
    paymentId: t.hex().notNull(),
    payer: t.hex().notNull(),
    token: t.hex().notNull(),
    merchant: t.hex().notNull(),
    /** Total paid by the payer (merchant share + fee), smallest units. */
    amount: t.bigint().notNull(),
    fee: t.bigint().notNull(),
    /**
     * The paid token's Transfers from the payer inside this settlement (`settlementTransfers`):
     * what it actually moved. A fee-on-transfer token moves less than `amount`, and only what
     * reached the merchant and the fee recipient is credited.
     */
    transfers: t.jsonb().$type<Array<{ to: string; amount: string }>>().notNull(),
    contract: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    blockHash: t.hex().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    paymentIdx: index().on(table.paymentId),
    blockIdx: index().on(table.chainId, table.blockNumber),
  }),
);

/**
 * Every `SplitPaymentExecuted` of the settlement contract: one row per `splitPayment` call
 * (the client SDK's path). The caller chose the params, so a row is evidence for a payment
 * only when they are exactly what the service issued for it (rails/evm/readModel/evidence.ts).
 */
export const splitPayment = onchainTable(
  "split_payment",
  (t) => ({
    id: t.text().primaryKey(),
    chainId: t.integer().notNull(),
    /** `keccak256(abi.encode(params))`: what the contract's single use is keyed by. */
    key: t.hex().notNull(),
    /** The params' payment id as called (text: any caller may put anything there). */
    paymentId: t.text().notNull(),
    payer: t.hex().notNull(),
    token: t.hex().notNull(),
    /** Total pulled from the payer, smallest units. */
    amount: t.bigint().notNull(),
    /** What the recipients' balances rose by in all (the credit). */
    received: t.bigint().notNull(),
    recipient1: t.hex().notNull(),
    recipient2: t.hex().notNull(),
    recipient3: t.hex().notNull(),
    recipient1Percentage: t.integer().notNull(),
    recipient2Percentage: t.integer().notNull(),
    recipient3Percentage: t.integer().notNull(),
    contract: t.hex().notNull(),
    blockNumber: t.bigint().notNull(),
    blockHash: t.hex().notNull(),
    txHash: t.hex().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
  }),
  (table) => ({
    paymentIdx: index().on(table.paymentId),
    blockIdx: index().on(table.chainId, table.blockNumber),
  }),
);

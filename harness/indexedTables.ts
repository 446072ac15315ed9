import { sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import type { SplitPaymentParams } from "../domain/splitPayment.ts";

/**
 * The indexer's evidence tables as Ponder 0.16 creates them (`indexer/ponder.schema.ts`:
 * hex → text, bigint → numeric(78,0), with the schema's indexes), written by hand so a
 * test sets exactly the indexed state it needs without running Ponder.
 */
export async function createIndexedTables(db: Db, schema: string): Promise<void> {
  const s = sql.identifier(schema);
  await db.execute(sql`create schema if not exists ${s}`);
  await db.execute(sql`
    create table if not exists ${s}.token_transfer (
      id text primary key, chain_id integer not null, block_number numeric(78,0) not null, block_hash text not null, tx_hash text not null,
      log_index integer not null, token text not null, "from" text not null, "to" text not null, amount numeric(78,0) not null, timestamp numeric(78,0) not null)`);
  await db.execute(sql`
    create table if not exists ${s}.settlement_payment (
      id text primary key, chain_id integer not null, payment_id text not null, payer text not null, token text not null, merchant text not null,
      amount numeric(78,0) not null, fee numeric(78,0) not null, contract text not null, block_number numeric(78,0) not null, block_hash text not null,
      tx_hash text not null, log_index integer not null, timestamp numeric(78,0) not null, transfers jsonb)`);
  await db.execute(sql`
    create table if not exists ${s}.split_payment (
      id text primary key, chain_id integer not null, key text not null, payment_id text not null, payer text not null, token text not null,
      amount numeric(78,0) not null, received numeric(78,0) not null, recipient1 text not null, recipient2 text not null, recipient3 text not null,
      recipient1_percentage integer not null, recipient2_percentage integer not null, recipient3_percentage integer not null,
      contract text not null, block_number numeric(78,0) not null, block_hash text not null, tx_hash text not null, log_index integer not null,
      timestamp numeric(78,0) not null)`);
  await db.execute(sql`create index if not exists split_payment_payment_idx on ${s}.split_payment (payment_id)`);
  await db.execute(sql`create index if not exists split_payment_block_idx on ${s}.split_payment (chain_id, block_number)`);
  // Without them a benchmark measures sequential scans production never does (the memory run's rounds slowed as the tables grew).
  await db.execute(sql`create index if not exists token_transfer_to_idx on ${s}.token_transfer ("to", chain_id)`);
  await db.execute(sql`create index if not exists token_transfer_block_idx on ${s}.token_transfer (chain_id, block_number)`);
  await db.execute(sql`create index if not exists settlement_payment_payment_idx on ${s}.settlement_payment (payment_id)`);
  await db.execute(sql`create index if not exists settlement_payment_block_idx on ${s}.settlement_payment (chain_id, block_number)`);
}

export type IndexedTransfer = {
  chainId: number;
  blockNumber: number;
  txHash: string;
  logIndex?: number;
  token: string;
  from: string;
  to: string;
  amount: bigint;
  /** Block time. */
  at: Date;
};

/** One indexed ERC-20 Transfer (addresses stored lowercase, as Ponder stores hex). */
export async function insertIndexedTransfer(db: Db, schema: string, t: IndexedTransfer): Promise<void> {
  const logIndex = t.logIndex ?? 0;
  await db.execute(sql`
    insert into ${sql.identifier(schema)}.token_transfer values (
      ${`${t.chainId}:${t.txHash}:${logIndex}`}, ${t.chainId}, ${t.blockNumber}, ${`0xb${t.blockNumber}`}, ${t.txHash}, ${logIndex},
      ${t.token.toLowerCase()}, ${t.from.toLowerCase()}, ${t.to.toLowerCase()}, ${t.amount.toString()}, ${Math.floor(t.at.getTime() / 1000)})`);
}

export type IndexedSettlement = {
  chainId: number;
  paymentId: string;
  payer: string;
  token: string;
  merchant: string;
  amount: bigint;
  fee: bigint;
  contract: string;
  blockNumber: number;
  txHash: string;
  logIndex?: number;
  at: Date;
  /** What its token Transfers moved (the indexer always records them); absent: null, counted at `amount`. */
  transfers?: Array<{ to: string; amount: bigint }>;
};

/** One indexed `PaymentSettled` of the settlement contract (the intent's bytes32 id is the uuid left-padded). */
export async function insertIndexedSettlement(db: Db, schema: string, e: IndexedSettlement): Promise<void> {
  const logIndex = e.logIndex ?? 0;
  const bytes32 = `0x${"0".repeat(32)}${e.paymentId.replaceAll("-", "")}`;
  await db.execute(sql`
    insert into ${sql.identifier(schema)}.settlement_payment values (
      ${`${e.chainId}:${e.txHash}:${logIndex}`}, ${e.chainId}, ${bytes32}, ${e.payer.toLowerCase()}, ${e.token.toLowerCase()},
      ${e.merchant.toLowerCase()}, ${e.amount.toString()}, ${e.fee.toString()}, ${e.contract.toLowerCase()}, ${e.blockNumber},
      ${`0xb${e.blockNumber}`}, ${e.txHash}, ${logIndex}, ${Math.floor(e.at.getTime() / 1000)},
      ${e.transfers ? JSON.stringify(e.transfers.map((t) => ({ to: t.to.toLowerCase(), amount: t.amount.toString() }))) : null}::text::jsonb)`);
}

export type IndexedSplit = {
  chainId: number;
  paymentId: string;
  payer: string;
  params: SplitPaymentParams;
  /** What the recipients received (default: the params' amount). */
  received?: bigint;
  contract: string;
  blockNumber: number;
  txHash: string;
  logIndex?: number;
  at: Date;
};

/** One indexed `SplitPaymentExecuted` of the settlement contract (addresses lowercase, as Ponder stores hex). */
export async function insertIndexedSplit(db: Db, schema: string, x: IndexedSplit): Promise<void> {
  const logIndex = x.logIndex ?? 0;
  const p = x.params;
  await db.execute(sql`
    insert into ${sql.identifier(schema)}.split_payment values (
      ${`${x.chainId}:${x.txHash}:${logIndex}`}, ${x.chainId}, ${`0x${"ab".repeat(32)}`}, ${x.paymentId}, ${x.payer.toLowerCase()}, ${p.token.toLowerCase()},
      ${p.amount}, ${(x.received ?? BigInt(p.amount)).toString()}, ${p.recipient1.toLowerCase()}, ${p.recipient2.toLowerCase()}, ${p.recipient3.toLowerCase()},
      ${p.recipient1Percentage}, ${p.recipient2Percentage}, ${p.recipient3Percentage}, ${x.contract.toLowerCase()}, ${x.blockNumber},
      ${`0xb${x.blockNumber}`}, ${x.txHash}, ${logIndex}, ${Math.floor(x.at.getTime() / 1000)})`);
}

import type { VersionedMessage } from "@solana/web3.js";

/** A transaction error in the JSON form a real node returns, and its Display text. */
export interface TransactionErrorInfo {
  json: unknown;
  message: string;
}

/** A token account's balance as part of a transaction's meta; amount in the token's smallest unit. */
export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  amount: bigint;
  decimals: number;
}

export interface RecordedInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
  stackHeight: number | null;
}

export interface InnerInstructions {
  index: number;
  instructions: RecordedInstruction[];
}

/** Everything a real node's ledger keeps about an executed transaction. */
export interface TransactionRecord {
  /** Position in the ledger's global order (newest is largest). */
  seq: number;
  signature: string;
  signatures: string[];
  slot: number;
  blockTime: number;
  wire: Uint8Array;
  message: VersionedMessage;
  version: "legacy" | 0;
  /** Static keys, then keys loaded from lookup tables (writable, then readonly). */
  accountKeys: string[];
  loadedAddresses: { writable: string[]; readonly: string[] };
  err: TransactionErrorInfo | null;
  /** Lamports charged to the fee payer. */
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  logMessages: string[];
  innerInstructions: InnerInstructions[];
  computeUnitsConsumed: bigint;
  returnData: { programId: string; data: Uint8Array } | null;
  /** Accounts whose state this transaction changed. */
  changedAccounts: string[];
  memo: string | null;
}

import type { AccountState } from "./accountState.ts";
import type { DecodedTransaction } from "./decodeTransaction.ts";
import type { ExecutionMeta } from "./readExecutionMeta.ts";
import type { TransactionErrorInfo } from "./transactionRecord.ts";

/** The outcome of simulating a transaction against the newest (processed) state. */
export interface Simulation {
  decoded: DecodedTransaction;
  err: TransactionErrorInfo | null;
  meta: ExecutionMeta;
  fee: bigint;
  /** Post-simulation state of the transaction's accounts (empty when it failed). */
  postAccounts: Map<string, AccountState | null>;
}

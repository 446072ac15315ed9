import type { TransactionErrorInfo } from "./transactionRecord.ts";

/**
 * A transaction the chain would not include in a block (bad signature, unknown or
 * expired blockhash, duplicate, unloadable accounts): no fee is charged, nothing is recorded.
 */
export class TransactionRejectedError extends Error {
  override readonly name = "TransactionRejectedError";

  constructor(
    readonly error: TransactionErrorInfo,
    readonly logs: string[] = [],
  ) {
    super(error.message);
  }
}

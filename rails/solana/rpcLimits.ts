/** The most signatures one `getSignatureStatuses` call may name (the node refuses more). */
export const STATUSES_PER_CALL = 256;

/**
 * Transactions asked in one JSON-RPC batch (`getParsedTransactions`). Providers refuse large
 * batches and count a batch as its size against the plan's requests per second: a hundred
 * keeps one batch within what a paid plan allows at once.
 */
export const TRANSACTIONS_PER_CALL = 100;

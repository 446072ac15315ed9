/** The most signatures one `getSignatureStatuses` call may name (the node refuses more). */
export const STATUSES_PER_CALL = 256;

/**
 * Calls in one JSON-RPC batch (transactions, signature listings). Providers refuse large
 * batches and count a batch as its size against the plan's requests per second: a hundred
 * keeps one batch within what a paid plan allows at once.
 */
export const CALLS_PER_BATCH = 100;

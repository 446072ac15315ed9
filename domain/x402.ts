/** x402 (HTTP 402 payments): the facilitator's own vocabulary, shared by the API and the worker. */

/**
 * `requested`: written by the API, the worker has not submitted it yet; `submitted`: its
 * transaction is broadcast, not yet mined (the settle answers pending); `settled`: mined, what
 * it paid the merchant recorded; `failed`: it cannot settle (never broadcast, expired, or reverted).
 */
export const x402SettlementStatuses = ["requested", "submitted", "settled", "failed"] as const;
export type X402SettlementStatus = (typeof x402SettlementStatuses)[number];

/** x402's reason for a settle whose transaction is broadcast but not confirmed: the client must not pay again. */
export const SETTLEMENT_PENDING = "settlement_pending";

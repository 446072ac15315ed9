/** x402 (HTTP 402 payments): the facilitator's own vocabulary, shared by the API and the worker. */

/**
 * `requested`: written by the API, the worker has not submitted it yet; `submitted`: its
 * transaction is broadcast, not yet mined (the settle answers pending); `settled`: mined, its
 * Transfer log recorded; `failed`: the authorization cannot settle (never broadcast, or reverted).
 */
export const x402SettlementStatuses = ["requested", "submitted", "settled", "failed"] as const;
export type X402SettlementStatus = (typeof x402SettlementStatuses)[number];

/** x402's reason for a settle whose transaction is broadcast but not confirmed: the client must not pay again. */
export const SETTLEMENT_PENDING = "settlement_pending";

/** CAIP-2 id of an EVM chain (`eip155:<chainId>`), as x402 v2 names networks. */
export const evmCaip2 = (chainId: string): `eip155:${string}` => `eip155:${chainId}`;

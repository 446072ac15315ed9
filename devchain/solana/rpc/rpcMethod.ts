import type { DevLedger } from "../ledger/DevLedger.ts";

/** A JSON-RPC method handler: positional params in, JSON-ready result out (throws RpcError). */
export type RpcMethod = (params: unknown[], ledger: DevLedger) => unknown;

export type RpcMethods = Record<string, RpcMethod>;

/** The version the devchain reports as `solana-core` and in every response context. */
export const devchainSolanaVersion = "2.3.0";

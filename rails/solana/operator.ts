import { Keypair } from "@solana/web3.js";
import type { Config } from "../../config/index.ts";
import { MAX_PRIORITY_LAMPORTS } from "./transfers/priorityFee.ts";

/** The Solana operator: pays the fees and rent of sweeps and refunds, and gets the rent back when a deposit account closes. */
export function solanaOperator(config: Config): Keypair | null {
  return config.solana.operatorSecretKey ? Keypair.fromSecretKey(config.solana.operatorSecretKey) : null;
}

/** Rent-exempt lamports of an account of `bytes` (the runtime's 128-byte overhead, 3,480 lamports per byte-year, two years). */
const rentExempt = (bytes: number) => BigInt((bytes + 128) * 3_480 * 2);

/**
 * Lamports the operator must hold to send a sweep or refund: the recipient's associated
 * token account if it must be created (182 bytes, Token-2022's with the transfer-fee and
 * immutable-owner extensions: the largest the catalogue's mints make), two signatures'
 * fees, and the operator's own rent-exempt minimum (an account paying below it fails the
 * transaction, and a failed transaction still burns its fee). The deposit account's rent
 * comes back only when the transfer empties it. Plus the most its priority fee can cost.
 */
export const SWEEP_LAMPORTS = rentExempt(182) + 2n * 5_000n + rentExempt(0) + MAX_PRIORITY_LAMPORTS;

import { Keypair } from "@solana/web3.js";
import type { Config } from "../../config/index.ts";

/** The Solana operator: pays the fees and rent of sweeps and refunds, and gets the rent back when a deposit account closes. */
export function solanaOperator(config: Config): Keypair | null {
  return config.solana.operatorSecretKey ? Keypair.fromSecretKey(config.solana.operatorSecretKey) : null;
}

/**
 * Lamports a sweep may cost the operator at most: the merchant's associated token
 * account if it must be created (rent of a 170-byte account, Token-2022's size with
 * the immutable-owner extension) plus the fee; the deposit account's rent comes back.
 */
export const SWEEP_LAMPORTS = 2_100_000n;

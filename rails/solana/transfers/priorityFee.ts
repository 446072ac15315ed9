import type { Connection, PublicKey } from "@solana/web3.js";

/** Compute units a sweep or refund may use: creating a Token-2022 account, the transfer, harvest and close fit well within it. */
export const TRANSFER_OUT_COMPUTE_UNITS = 200_000;
/** The least priority fee offered, micro-lamports per compute unit. */
const MIN_PRICE = 1_000n;
/** The most offered, however often the transaction expired: 1 lamport per unit (0.0002 SOL a transfer at most). */
export const MAX_PRICE = 1_000_000n;

/**
 * The compute-unit price a sweep or refund offers: the 75th percentile of what recent
 * blocks charged for the accounts it writes (`getRecentPrioritizationFees`), at least
 * `MIN_PRICE`, doubled for each earlier signing that expired unlanded (congestion the
 * recent fees understate), at most `MAX_PRICE`. A node that cannot say gives the floor.
 */
export async function priorityFee(connection: Connection, writable: PublicKey[], expiredBefore: number): Promise<bigint> {
  const recent = await connection.getRecentPrioritizationFees({ lockedWritableAccounts: writable }).catch(() => []);
  const fees = recent.map((f) => BigInt(f.prioritizationFee)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const p75 = fees.length > 0 ? fees[Math.floor((fees.length * 3) / 4)]! : 0n;
  const price = (p75 > MIN_PRICE ? p75 : MIN_PRICE) * 2n ** BigInt(Math.min(expiredBefore, 20));
  return price < MAX_PRICE ? price : MAX_PRICE;
}

/** The most a transfer's priority fee costs, in lamports. */
export const MAX_PRIORITY_LAMPORTS = (BigInt(TRANSFER_OUT_COMPUTE_UNITS) * MAX_PRICE) / 1_000_000n;

import { PublicKey } from "@solana/web3.js";

/** A Solana address (a base58 32-byte public key) as given, or null if it is not one. */
export function normalizeSolanaAddress(address: string): string | null {
  const value = address.trim();
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value)) return null;
  try {
    return new PublicKey(value).toBase58() === value ? value : null;
  } catch {
    return null;
  }
}

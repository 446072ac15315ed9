import { base58 } from "@scure/base";

/**
 * A Solana address (a base58 32-byte public key) as given, or null if it is not one
 * (what `new PublicKey(a).toBase58() === a` checks, without loading @solana/web3.js:
 * configuration and the API validate addresses in every deployment, Solana or not).
 */
export function normalizeSolanaAddress(address: string): string | null {
  const value = address.trim();
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value)) return null;
  try {
    const bytes = base58.decode(value);
    return bytes.length === 32 && base58.encode(bytes) === value ? value : null;
  } catch {
    return null;
  }
}

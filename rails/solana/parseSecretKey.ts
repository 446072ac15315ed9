import { getBase58Codec } from "@solana/kit";
import { Keypair } from "@solana/web3.js";

/**
 * A Solana keypair's 64-byte secret key written as base58 (what wallets export) or a
 * JSON array of bytes (what `solana-keygen` writes); null when it is neither, or its
 * public half does not match its secret half.
 */
export function parseSolanaSecretKey(text: string): Uint8Array | null {
  const value = text.trim();
  let bytes: Uint8Array;
  try {
    bytes = value.startsWith("[") ? Uint8Array.from(JSON.parse(value) as number[]) : new Uint8Array(getBase58Codec().encode(value));
  } catch {
    return null;
  }
  if (bytes.length !== 64) return null;
  try {
    Keypair.fromSecretKey(bytes); // checks that the public key belongs to the secret
    return bytes;
  } catch {
    return null;
  }
}

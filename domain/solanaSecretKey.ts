import { ed25519 } from "@noble/curves/ed25519";
import { base58 } from "@scure/base";

/**
 * A Solana keypair's 64-byte secret key written as base58 (what wallets export) or a
 * JSON array of bytes (what `solana-keygen` writes); null when it is neither, or its
 * public half does not match its secret half. Configuration parses it at start in every
 * deployment, so it uses the curve library viem already loads, not @solana/web3.js.
 */
export function parseSolanaSecretKey(text: string): Uint8Array | null {
  const value = text.trim();
  let bytes: Uint8Array;
  try {
    bytes = value.startsWith("[") ? Uint8Array.from(JSON.parse(value) as number[]) : base58.decode(value);
  } catch {
    return null;
  }
  if (bytes.length !== 64) return null;
  const publicKey = ed25519.getPublicKey(bytes.subarray(0, 32));
  return publicKey.every((b, i) => b === bytes[32 + i]) ? bytes : null;
}

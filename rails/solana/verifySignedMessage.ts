import { ed25519 } from "@noble/curves/ed25519";
import { base58, base64 } from "@scure/base";

/** The 64 bytes of a signature written in base58 (Solana's way) or base64 (a browser's `btoa`), or null. */
function signatureBytes(signature: string): Uint8Array | null {
  for (const codec of [base58, base64]) {
    try {
      const bytes = codec.decode(signature.trim());
      if (bytes.length === 64) return bytes;
    } catch {}
  }
  return null;
}

/**
 * Whether `signature` is `signer`'s ed25519 signature of the UTF-8 bytes of `message`: what a
 * Solana wallet's `signMessage` returns. `signer` is a base58 public key.
 */
export async function verifySignedMessage(signer: string, message: string, signature: string): Promise<boolean> {
  const bytes = signatureBytes(signature);
  if (!bytes) return false;
  try {
    const key = base58.decode(signer);
    return key.length === 32 && ed25519.verify(bytes, new TextEncoder().encode(message), key);
  } catch {
    return false;
  }
}

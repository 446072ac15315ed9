import { createPublicKey, verify } from "node:crypto";
import type { DecodedTransaction } from "./decodeTransaction.ts";

// DER prefix that wraps a raw 32-byte ed25519 key as SubjectPublicKeyInfo.
const ed25519SpkiPrefix = Buffer.from("302a300506032b6570032100", "hex");

/** Whether every signature verifies against its signer's key over the message bytes. */
export function verifySignatures(decoded: DecodedTransaction): boolean {
  return decoded.transaction.signatures.every((signature, index) => {
    const signer = decoded.message.staticAccountKeys[index];
    if (!signer) return false;
    const key = createPublicKey({
      key: Buffer.concat([ed25519SpkiPrefix, signer.toBuffer()]),
      format: "der",
      type: "spki",
    });
    return verify(null, decoded.messageBytes, key, signature);
  });
}

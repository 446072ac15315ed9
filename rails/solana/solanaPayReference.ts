import { createHash } from "node:crypto";
import { PublicKey } from "@solana/web3.js";

/**
 * A payment's Solana Pay `reference`: 32 bytes from its id (SHA-256 under a fixed
 * label), added by the wallet as a read-only key of the transfer so that
 * `getSignaturesForAddress(reference)` finds it. Not a secret and not a signer: it
 * only points at the transaction, which is then checked by its balance changes.
 */
export const solanaPayReference = (paymentId: string): PublicKey =>
  new PublicKey(createHash("sha256").update(`stablepay:solana-pay-reference:v1:${paymentId.toLowerCase()}`).digest());

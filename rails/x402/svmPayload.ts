import { getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder } from "@solana/kit";
import { getTokenPayerFromTransaction, transactionMessageHash, validateComputeBudgetLimits } from "@x402/svm";
import { SVM_LIMITS } from "./svmLimits.ts";

/** What an `exact` Solana payload carries: the payer's partially signed transfer, awaiting the fee payer's signature. */
export type SvmTransfer = {
  /** The base64 wire transaction. */
  transaction: string;
  /** The owner of the token account it pays from (the transfer's authority), as x402 reads it. */
  payer: string;
  /** Hex SHA-256 of the message: the same transfer, whoever presents it, is the same authorization (x402's own dedup key). */
  nonce: string;
  /** The blockhash it was built on: once the cluster no longer accepts it, the transaction can never land. */
  blockhash: string;
};

/** The transfer an `exact` Solana payload carries, or null when it is not one (x402's verify says why). */
export function svmTransferOf(payload: unknown): SvmTransfer | null {
  const transaction = (payload as { transaction?: unknown } | null)?.transaction;
  if (typeof transaction !== "string") return null;
  try {
    // Decoded as x402's `decodeTransactionFromPayload` does, without its console.error for each bad payload a stranger sends.
    const decoded = getTransactionDecoder().decode(getBase64Encoder().encode(transaction));
    const payer = getTokenPayerFromTransaction(decoded);
    if (!payer) return null;
    const nonce = Buffer.from(transactionMessageHash(decoded), "base64").toString("hex");
    const { lifetimeToken } = getCompiledTransactionMessageDecoder().decode(decoded.messageBytes);
    return { transaction, payer, nonce, blockhash: lifetimeToken };
  } catch {
    return null;
  }
}

/**
 * Why the transfer's compute budget is more than the operator pays for (`SVM_LIMITS`), or null.
 * x402 v2's scheme is given the limits; v1's caps only the price (at 50× ours) and not the
 * units, so every payload is held to them here, whatever its version.
 */
export function computeBudgetProblem(transaction: string): string | null {
  try {
    validateComputeBudgetLimits(getTransactionDecoder().decode(getBase64Encoder().encode(transaction)), SVM_LIMITS);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

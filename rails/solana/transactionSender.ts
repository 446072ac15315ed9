import type { Network } from "../../config/types.ts";
import { solanaConnection } from "./connection.ts";
import { isSolanaSignature } from "./verifySubmission.ts";

/** The fee payer of transaction `signature` (the wallet that signed and paid for it), or null when the node does not know it. */
export async function transactionSender(network: Network, signature: string, timeoutMs: number): Promise<string | null> {
  if (!isSolanaSignature(signature)) return null;
  const transaction = await solanaConnection(network, "confirmed", timeoutMs).getParsedTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: "confirmed" });
  return transaction?.transaction.message.accountKeys[0]?.pubkey.toBase58() ?? null;
}

import type { PreparedPayment, PrepareContext, PrepareRequest } from "../types.ts";
import { depositKeypair, depositSeed } from "./depositKeys.ts";

/**
 * The Solana columns of a new payment. A deposit payment gets its own key, derived
 * from the master seed and the payment id (SLIP-0010): `receiveAddress` is that key, and
 * its associated token account for the mint is what is watched and swept. A direct
 * payment is a Solana Pay transfer to the merchant's wallet carrying the payment's
 * reference key: `receiveAddress` is the merchant's wallet. No contract, no intent.
 */
export async function preparePayment(ctx: PrepareContext, request: PrepareRequest): Promise<PreparedPayment> {
  const none = { contractAddress: null, intentSignature: null, intentDeadline: null, feeRecipient: null, contractCall: null };
  if (request.kind !== "deposit") return { ...none, receiveAddress: request.merchantWallet };
  const seed = await depositSeed(ctx.db, ctx.config.secrets);
  return { ...none, receiveAddress: depositKeypair(seed, request.paymentId).publicKey.toBase58() };
}

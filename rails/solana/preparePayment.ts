import type { PreparedPayment, PrepareContext, PrepareRequest } from "../types.ts";
import { claimDepositAddress } from "./depositPool.ts";

/**
 * The Solana columns of a new payment. A deposit payment gets an address of its own from the
 * pool the worker derives ahead of need (SLIP-0010 from a seed only the worker holds): its
 * associated token account for the mint is what is watched and swept. A direct payment is a
 * Solana Pay transfer to the merchant's wallet carrying the payment's reference key:
 * `receiveAddress` is the merchant's wallet. No contract, no intent, no key.
 */
export async function preparePayment(ctx: PrepareContext, request: PrepareRequest): Promise<PreparedPayment> {
  const none = { contractAddress: null, intentSignature: null, intentDeadline: null, feeRecipient: null, contractCall: null };
  if (request.kind !== "deposit") return { ...none, receiveAddress: request.merchantWallet };
  return { ...none, receiveAddress: await claimDepositAddress(ctx, request.paymentId) };
}

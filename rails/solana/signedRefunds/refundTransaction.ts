import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction } from "@solana/spl-token";
import { ComputeBudgetProgram, PublicKey, Transaction, type TransactionInstruction } from "@solana/web3.js";
import type { Network } from "../../../config/types.ts";
import type { PaymentRow } from "../../../db/schema/index.ts";
import { associatedTokenAccount, tokenOfMint, tokenProgramOf } from "../tokenAccounts.ts";

/** Compute units a signed refund may use: creating the payer's token account and the transfer fit well within it. */
export const SIGNED_REFUND_COMPUTE_UNITS = 100_000;

export type SignedRefundParts = { operator: PublicKey; from: PublicKey; to: PublicKey; amount: bigint; price: bigint; blockhash: string };

/**
 * The one transaction a merchant-signed refund is: the operator pays every fee (and the
 * payer's token account's rent, if it has none), the merchant's wallet signs only as the
 * owner of its token account: a compute budget, the recipient's associated token account
 * created if missing, `transferChecked` of the amount. What the wallet hands back must be
 * exactly this, byte for byte: the operator's key signs nothing else.
 */
export function refundTransaction(network: Network, payment: Pick<PaymentRow, "tokenAddress">, parts: SignedRefundParts): Transaction {
  const token = tokenOfMint(network, payment.tokenAddress);
  const program = tokenProgramOf(token);
  const mint = new PublicKey(token.address);
  const source = associatedTokenAccount(parts.from, mint, program);
  const destination = associatedTokenAccount(parts.to, mint, program);
  const instructions: TransactionInstruction[] = [
    ComputeBudgetProgram.setComputeUnitLimit({ units: SIGNED_REFUND_COMPUTE_UNITS }),
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports: parts.price }),
    createAssociatedTokenAccountIdempotentInstruction(parts.operator, destination, parts.to, mint, program),
    createTransferCheckedInstruction(source, mint, destination, parts.from, parts.amount, token.decimals, [], program),
  ];
  return new Transaction({ feePayer: parts.operator, recentBlockhash: parts.blockhash }).add(...instructions);
}

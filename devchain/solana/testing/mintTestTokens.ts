import { createAssociatedTokenAccountIdempotentInstruction, createMintToCheckedInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import type { PublicKey } from "@solana/web3.js";
import type { DevLedger } from "../ledger/DevLedger.ts";
import type { TestMint } from "./createTestMint.ts";
import { sendDevChainTransaction } from "./sendDevChainTransaction.ts";

/**
 * Mints `amount` (in the token's smallest unit) to the owner's associated token
 * account, creating the account if needed; processed at once.
 */
export function mintTestTokens(ledger: DevLedger, mint: TestMint, owner: PublicKey, amount: bigint): { tokenAccount: PublicKey; signature: string } {
  const tokenAccount = getAssociatedTokenAddressSync(mint.address, owner, true, mint.programId);
  const signature = sendDevChainTransaction(
    ledger,
    [
      createAssociatedTokenAccountIdempotentInstruction(ledger.faucet.publicKey, tokenAccount, owner, mint.address, mint.programId),
      createMintToCheckedInstruction(mint.address, tokenAccount, mint.mintAuthority.publicKey, amount, mint.decimals, [], mint.programId),
    ],
    [mint.mintAuthority],
  );
  return { tokenAccount, signature };
}

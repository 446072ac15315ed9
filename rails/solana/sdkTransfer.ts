import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { ComputeBudgetProgram, PublicKey, SystemProgram, type ParsedTransactionWithMeta } from "@solana/web3.js";
import type { PaymentRow } from "../../db/schema/index.ts";
import type { UnstampedCredit } from "./ingest/readCredits.ts";
import { tokenBalanceDelta, type WatchedTokenAccount } from "./tokenBalanceDelta.ts";
import { associatedTokenAccount } from "./tokenAccounts.ts";
import type { PaymentWatch } from "./watchedAccount.ts";

/**
 * How long before a payment's creation a transfer may be stamped and still pay it: the
 * chain's block time and the service's clock differ by a few seconds (block times are
 * whole seconds). Anything older was not sent for this payment.
 */
export const SDK_TRANSFER_CLOCK_SKEW_MS = 60_000;

/** Programs the client SDK's transfer runs (token transfers, creating the recipients' token accounts, fees). */
const PROGRAMS = new Set([TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, ASSOCIATED_TOKEN_PROGRAM_ID, SystemProgram.programId, ComputeBudgetProgram.programId].map((p) => p.toBase58()));

/**
 * What the published client SDK's own Solana transfer pays a direct payment: `transfer`s
 * from the customer's token account to the merchant's (and, where the payment has a fee
 * wallet, to that wallet's) associated token account, with no Solana Pay reference. With
 * nothing in it naming the payment, it is recognised by the transaction itself:
 * - every key is one such a transfer needs: its signers, their token accounts, the mint,
 *   the merchant's and fee wallet's wallets and token accounts, and the token, associated
 *   token, system and compute-budget programs — a key of anything else (a Solana Pay
 *   reference, another payment's deposit account) means it is not the SDK's transfer;
 * - the merchant did not sign it (the merchant moving its own money pays no one's payment);
 * - it was made after the payment was created (less the clock skew);
 * - the credit is the rise of the merchant's (and fee wallet's) token account balance of the
 *   payment's mint, from the node's balances, never from instruction amounts.
 * The caller records it so that one signature credits at most one payment.
 */
export function sdkTransferCredits(
  watch: PaymentWatch,
  payment: Pick<PaymentRow, "createdAt" | "feeRecipient">,
  signature: string,
  transaction: ParsedTransactionWithMeta,
): UnstampedCredit[] {
  if (watch.source !== "settlement" || !transaction.meta || transaction.meta.err !== null) return [];
  const program = watch.credit.tokenProgram;
  const feeWallet = payment.feeRecipient && payment.feeRecipient !== watch.owner ? payment.feeRecipient : null;
  const fee: WatchedTokenAccount | null = feeWallet
    ? { account: associatedTokenAccount(feeWallet, watch.credit.mint, new PublicKey(program)).toBase58(), mint: watch.credit.mint, tokenProgram: program }
    : null;
  const keys = transaction.transaction.message.accountKeys;
  const signers = new Set(keys.filter((k) => k.signer).map((k) => k.pubkey.toBase58()));
  if (signers.has(watch.owner)) return [];
  // Token accounts the signers own (their source accounts), by the node's balances.
  const balances = [...(transaction.meta.preTokenBalances ?? []), ...(transaction.meta.postTokenBalances ?? [])];
  const signersAccounts = new Set(balances.filter((b) => b.owner !== undefined && signers.has(b.owner)).map((b) => keys[b.accountIndex]?.pubkey.toBase58()));
  const allowed = new Set([...signers, ...PROGRAMS, watch.credit.mint, watch.owner, watch.credit.account, ...(feeWallet && fee ? [feeWallet, fee.account] : [])]);
  if (!keys.every((k) => allowed.has(k.pubkey.toBase58()) || signersAccounts.has(k.pubkey.toBase58()))) return [];

  const seconds = transaction.blockTime ?? null;
  if (seconds !== null && seconds * 1000 < payment.createdAt.getTime() - SDK_TRANSFER_CLOCK_SKEW_MS) return [];
  const credits: UnstampedCredit[] = [];
  for (const [account, owner] of [[watch.credit, watch.owner], ...(fee && feeWallet ? [[fee, feeWallet] as const] : [])] as const) {
    const delta = tokenBalanceDelta(transaction, account);
    if (!delta || delta.owner !== owner) continue;
    credits.push({
      signature,
      account: account.account,
      paymentId: watch.paymentId,
      source: "settlement",
      owner,
      mint: account.mint,
      tokenProgram: account.tokenProgram,
      amount: delta.amount,
      slot: BigInt(transaction.slot),
      blockTime: seconds === null ? null : new Date(seconds * 1000),
      accountIndex: delta.accountIndex,
      finalized: false,
    });
  }
  // Nothing reached the merchant: whatever else it moved, it does not pay this payment.
  return credits.some((c) => c.account === watch.credit.account) ? credits : [];
}

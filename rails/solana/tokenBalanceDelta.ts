import type { ParsedTransactionWithMeta } from "@solana/web3.js";

/** The token account whose incoming money counts, with the mint and program it must hold. */
export type WatchedTokenAccount = { account: string; mint: string; tokenProgram: string };

export type TokenCredit = {
  /** Post minus pre balance of the account (smallest units); always > 0. */
  amount: bigint;
  /** The account's position in the transaction's account keys. */
  accountIndex: number;
  /** The owner the node reports for the account. */
  owner: string;
  /**
   * Who paid: the one owner whose token accounts of the mint lost balance in the
   * transaction (where a refund goes back by default); null when none did (a mint) or
   * several did (a transaction paying from more than one wallet).
   */
  payer: string | null;
};

/**
 * What a transaction paid into a watched token account: the rise of its balance of the
 * watched mint under the watched token program, from the node's pre/post token
 * balances, never from instruction amounts (a Token-2022 transfer fee makes them
 * differ). Nothing for a failed transaction, an account it does not touch, another mint
 * or program, or a balance that did not rise (outgoing, unchanged). An account created
 * in the transaction has no pre balance (0); one closed in it has no post balance (0).
 */
export function tokenBalanceDelta(transaction: ParsedTransactionWithMeta, watched: WatchedTokenAccount): TokenCredit | null {
  const meta = transaction.meta;
  if (!meta || meta.err !== null) return null;
  const keys = transaction.transaction.message.accountKeys.map((k) => k.pubkey.toBase58());
  const accountIndex = keys.indexOf(watched.account);
  if (accountIndex < 0) return null;
  const matches = (b: { accountIndex: number; mint: string; programId?: string }) =>
    b.accountIndex === accountIndex && b.mint === watched.mint && (b.programId === undefined || b.programId === watched.tokenProgram);
  const pre = (meta.preTokenBalances ?? []).find(matches);
  const post = (meta.postTokenBalances ?? []).find(matches);
  if (!pre && !post) return null;
  // A balance of another mint or program at this index means the account is not the watched one.
  const foreign = [...(meta.preTokenBalances ?? []), ...(meta.postTokenBalances ?? [])].some((b) => b.accountIndex === accountIndex && !matches(b));
  if (foreign) return null;
  const amount = BigInt(post?.uiTokenAmount.amount ?? "0") - BigInt(pre?.uiTokenAmount.amount ?? "0");
  if (amount <= 0n) return null;
  return { amount, accountIndex, owner: post?.owner ?? pre?.owner ?? "", payer: payerOf(meta, watched, accountIndex) };
}

/** The single owner whose balance of the watched mint fell in the transaction (other accounts than the credited one), else null. */
function payerOf(meta: NonNullable<ParsedTransactionWithMeta["meta"]>, watched: WatchedTokenAccount, credited: number): string | null {
  const sameToken = (b: { mint: string; programId?: string }) => b.mint === watched.mint && (b.programId === undefined || b.programId === watched.tokenProgram);
  const post = new Map((meta.postTokenBalances ?? []).filter(sameToken).map((b) => [b.accountIndex, b]));
  const owners = new Set<string>();
  for (const before of (meta.preTokenBalances ?? []).filter(sameToken)) {
    if (before.accountIndex === credited) continue;
    const after = post.get(before.accountIndex);
    // An account closed in the transaction has no post balance: everything left it.
    const fell = BigInt(after?.uiTokenAmount.amount ?? "0") < BigInt(before.uiTokenAmount.amount);
    const owner = before.owner ?? after?.owner;
    if (fell) {
      if (!owner) return null;
      owners.add(owner);
    }
  }
  return owners.size === 1 ? [...owners][0]! : null;
}

/** Whether `address` is one of the transaction's account keys (a Solana Pay reference must be). */
export const mentions = (transaction: ParsedTransactionWithMeta, address: string): boolean =>
  transaction.transaction.message.accountKeys.some((k) => k.pubkey.toBase58() === address);

import { unpackAccount } from "@solana/spl-token";
import { PublicKey } from "@solana/web3.js";
import type { AccountState } from "./accountState.ts";
import { isTokenProgram } from "./programIds.ts";
import { toAccountInfo } from "./toAccountInfo.ts";
import type { TokenBalance } from "./transactionRecord.ts";

/**
 * The pre- or postTokenBalances of a transaction: one entry per initialized SPL Token or
 * Token-2022 account among its keys, as a real node records them.
 */
export function readTokenBalances(
  accountKeys: string[],
  states: (AccountState | null)[],
  decimalsOf: (mint: string) => number | undefined,
): TokenBalance[] {
  const balances: TokenBalance[] = [];
  const seen = new Set<string>();
  accountKeys.forEach((key, accountIndex) => {
    const state = states[accountIndex];
    if (!state || !isTokenProgram(state.owner) || seen.has(key)) return;
    seen.add(key);
    const account = unpackTokenAccount(key, state);
    if (!account || !account.isInitialized) return;
    const mint = account.mint.toBase58();
    const decimals = decimalsOf(mint);
    if (decimals === undefined) return;
    balances.push({
      accountIndex,
      mint,
      owner: account.owner.toBase58(),
      programId: state.owner,
      amount: account.amount,
      decimals,
    });
  });
  return balances;
}

function unpackTokenAccount(key: string, state: AccountState) {
  try {
    return unpackAccount(new PublicKey(key), toAccountInfo(state), new PublicKey(state.owner));
  } catch {
    return undefined; // a mint or multisig, not a token account
  }
}

import type { TokenBalance } from "../ledger/transactionRecord.ts";
import { uiTokenAmount } from "./uiTokenAmount.ts";

/** A pre/postTokenBalances entry as a real node returns it (uiAmount null for a zero balance). */
export function encodeTokenBalance(balance: TokenBalance): unknown {
  return {
    accountIndex: balance.accountIndex,
    mint: balance.mint,
    uiTokenAmount: uiTokenAmount(balance.amount, balance.decimals, { zeroAsNull: true }),
    owner: balance.owner,
    programId: balance.programId,
  };
}

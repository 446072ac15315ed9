import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { ComputeBudgetProgram, SystemProgram } from "@solana/web3.js";

/** Base58 ids of the programs the devchain parses and accounts for. */
export const programIds = {
  system: SystemProgram.programId.toBase58(),
  token: TOKEN_PROGRAM_ID.toBase58(),
  token2022: TOKEN_2022_PROGRAM_ID.toBase58(),
  associatedToken: ASSOCIATED_TOKEN_PROGRAM_ID.toBase58(),
  computeBudget: ComputeBudgetProgram.programId.toBase58(),
  // Memo v1 and v3 (spl-memo); real nodes parse and extract memos from both.
  memoV1: "Memo1UhkJRfHyvLMcVucJwxXeuD728EVVDDwQDxxx",
  memo: "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr",
} as const;

export function isTokenProgram(programId: string): boolean {
  return programId === programIds.token || programId === programIds.token2022;
}

export function isMemoProgram(programId: string): boolean {
  return programId === programIds.memo || programId === programIds.memoV1;
}

import { address } from "@solana/kit";
import type { LiteSVM } from "litesvm";

/** An account as the ledger records it; lamports in the smallest unit (1 SOL = 10^9). */
export interface AccountState {
  lamports: bigint;
  owner: string;
  data: Uint8Array;
  executable: boolean;
}

/** The account's current state in the SVM; null when it does not exist (a real node shows 0-lamport accounts as absent). */
export function readAccount(svm: LiteSVM, account: string): AccountState | null {
  const found = svm.getAccount(address(account));
  if (!found.exists || found.lamports === 0n) return null;
  return {
    lamports: found.lamports,
    owner: found.programAddress,
    data: found.data,
    executable: found.executable,
  };
}

export function sameAccountState(a: AccountState | null, b: AccountState | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.lamports === b.lamports &&
    a.owner === b.owner &&
    a.executable === b.executable &&
    Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength).equals(b.data)
  );
}

import { getBase58Decoder } from "@solana/kit";
import type { AccountState } from "./accountState.ts";
import type { DecodedTransaction } from "./decodeTransaction.ts";
import { programIds } from "./programIds.ts";

const advanceNonceAccount = 4;
const nonceAccountLength = 80;
const initialized = 1;

/**
 * Whether a transaction uses a durable nonce instead of a recent blockhash: its first
 * instruction advances a nonce account whose stored nonce equals the transaction's
 * `recentBlockhash` (the check a real bank makes when the blockhash is unknown).
 */
export function usesValidDurableNonce(decoded: DecodedTransaction, readAccount: (address: string) => AccountState | null): boolean {
  const first = decoded.message.compiledInstructions[0];
  if (!first || decoded.accountKeys[first.programIdIndex] !== programIds.system) return false;
  const data = Buffer.from(first.data);
  if (data.length < 4 || data.readUInt32LE(0) !== advanceNonceAccount) return false;
  const nonceIndex = first.accountKeyIndexes[0];
  const nonceAccount = nonceIndex === undefined ? null : readAccount(decoded.accountKeys[nonceIndex]!);
  if (!nonceAccount || nonceAccount.owner !== programIds.system || nonceAccount.data.length !== nonceAccountLength) return false;
  const state = Buffer.from(nonceAccount.data);
  if (state.readUInt32LE(4) !== initialized) return false;
  return getBase58Decoder().decode(state.subarray(40, 72)) === decoded.message.recentBlockhash;
}

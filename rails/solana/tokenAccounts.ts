import { getAssociatedTokenAddressSync, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { PublicKey } from "@solana/web3.js";
import type { Network, Token } from "../../config/types.ts";

/** The program that owns a token's mint: the classic Token program unless the catalogue says Token-2022. */
export const tokenProgramOf = (token: Pick<Token, "tokenProgram">): PublicKey =>
  token.tokenProgram === "token-2022" ? TOKEN_2022_PROGRAM_ID : TOKEN_PROGRAM_ID;

/** The catalogue entry of a payment's mint on its network (the mint decides decimals and program). */
export function tokenOfMint(network: Network, mint: string): Token {
  const token = network.tokens.find((t) => t.address === mint);
  if (!token) throw new Error(`mint ${mint} is not a token of ${network.shortName}`);
  return token;
}

/** Derived accounts kept (oldest dropped first): about 300 bytes each. */
const REMEMBERED = 10_000;
const derived = new Map<string, PublicKey>();

/**
 * The associated token account of `owner` for `mint` under the token's program (owners may
 * be off-curve keys). Remembered: a derivation costs about a millisecond of curve checks, and
 * reconciling a payment or watching it derives the same account again and again.
 */
export function associatedTokenAccount(owner: string | PublicKey, mint: string | PublicKey, program: PublicKey): PublicKey {
  const key = `${owner.toString()}|${mint.toString()}|${program.toBase58()}`;
  let account = derived.get(key);
  if (!account) {
    account = getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(owner), true, program);
    if (derived.size >= REMEMBERED) derived.delete(derived.keys().next().value!);
    derived.set(key, account);
  }
  return account;
}

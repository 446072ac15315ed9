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

/** The associated token account of `owner` for `mint` under the token's program (owners may be off-curve keys). */
export function associatedTokenAccount(owner: string | PublicKey, mint: string | PublicKey, program: PublicKey): PublicKey {
  return getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(owner), true, program);
}

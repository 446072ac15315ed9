import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import type { Network } from "../../config/index.ts";
import { tokenProgramOf } from "./tokenAccounts.ts";

const MEMO_PROGRAM_ID = "MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr";

/**
 * `/payments/contract/{chainId}` on Solana: there is no settlement contract (payments
 * are plain SPL token transfers, found by a Solana Pay reference or at a deposit
 * address), so this says so and gives what a wallet needs instead: the mints with
 * their programs, the programs a transfer uses, and the Solana Pay request format.
 */
export function contractDescription(network: Network) {
  return {
    chainId: network.chainId,
    network: network.shortName,
    type: network.type,
    contractAddress: null,
    settlementContract: null,
    message: "Solana needs no settlement contract: pay with a Solana Pay transfer request (the payment's paymentUri) or to its deposit address.",
    tokens: network.tokens.map((t) => ({ symbol: t.symbol, mint: t.address, decimals: t.decimals, tokenProgram: tokenProgramOf(t).toBase58() })),
    programs: {
      token: TOKEN_PROGRAM_ID.toBase58(),
      token2022: TOKEN_2022_PROGRAM_ID.toBase58(),
      associatedToken: ASSOCIATED_TOKEN_PROGRAM_ID.toBase58(),
      memo: MEMO_PROGRAM_ID,
    },
    solanaPay: {
      format: "solana:<recipient>?amount=<decimal>&spl-token=<mint>&reference=<reference>&label=<label>&message=<message>",
      instruction: "transferChecked to the recipient's associated token account, the reference added as a read-only non-signer key",
    },
  };
}

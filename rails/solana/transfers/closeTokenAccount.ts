import { createCloseAccountInstruction, createHarvestWithheldTokensToMintInstruction, getMint, getTransferFeeConfig } from "@solana/spl-token";
import type { Connection, PublicKey, TransactionInstruction } from "@solana/web3.js";
import type { Token } from "../../../config/types.ts";

/**
 * The instructions that close a deposit's token account once a transfer in the same
 * transaction has emptied it, its rent going to `rentTo` (the operator, who paid it): a
 * Token-2022 account of a mint with a transfer fee closes only once its withheld fees went
 * to the mint, so those are harvested first. Used by sweeps and refunds that empty the
 * account and by `cli recover`.
 */
export async function closeTokenAccount(
  connection: Connection,
  input: { account: PublicKey; mint: PublicKey; token: Pick<Token, "tokenProgram">; program: PublicKey; owner: PublicKey; rentTo: PublicKey },
): Promise<TransactionInstruction[]> {
  const { account, mint, program } = input;
  const withheld = input.token.tokenProgram === "token-2022" && getTransferFeeConfig(await getMint(connection, mint, "confirmed", program));
  return [
    ...(withheld ? [createHarvestWithheldTokensToMintInstruction(mint, [account], program)] : []),
    createCloseAccountInstruction(account, input.rentTo, input.owner, [], program),
  ];
}

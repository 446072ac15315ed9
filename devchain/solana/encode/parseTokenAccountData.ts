import * as splToken from "@solana/spl-token";
import { PublicKey } from "@solana/web3.js";
import type { AccountState } from "../ledger/accountState.ts";
import { programIds } from "../ledger/programIds.ts";
import { toAccountInfo } from "../ledger/toAccountInfo.ts";
import { tokenExtensionsJson } from "./tokenExtensionsJson.ts";
import { uiTokenAmount } from "./uiTokenAmount.ts";

/**
 * The jsonParsed `data` of an SPL Token / Token-2022 account, mint or multisig
 * (`{program, parsed: {type, info}, space}`); null when it cannot be parsed, and then a
 * real node falls back to base64.
 */
export function parseTokenAccountData(
  account: string,
  state: AccountState,
  decimalsOf: (mint: string) => number | undefined,
): { program: string; parsed: { type: string; info: Record<string, unknown> }; space: number } | null {
  const program = state.owner === programIds.token2022 ? "spl-token-2022" : "spl-token";
  const address = new PublicKey(account);
  const programId = new PublicKey(state.owner);
  const info = toAccountInfo(state);
  const space = state.data.length;
  const tokenAccount = attempt(() => splToken.unpackAccount(address, info, programId));
  if (tokenAccount) {
    const mint = tokenAccount.mint.toBase58();
    const decimals = decimalsOf(mint);
    if (decimals === undefined) return null;
    const parsed: Record<string, unknown> = { mint, owner: tokenAccount.owner.toBase58(), tokenAmount: uiTokenAmount(tokenAccount.amount, decimals) };
    if (tokenAccount.delegate) parsed.delegate = tokenAccount.delegate.toBase58();
    parsed.state = tokenAccount.isFrozen ? "frozen" : tokenAccount.isInitialized ? "initialized" : "uninitialized";
    parsed.isNative = tokenAccount.isNative;
    if (tokenAccount.rentExemptReserve !== null) parsed.rentExemptReserve = uiTokenAmount(tokenAccount.rentExemptReserve, decimals);
    if (tokenAccount.delegate) parsed.delegatedAmount = uiTokenAmount(tokenAccount.delegatedAmount, decimals);
    if (tokenAccount.closeAuthority) parsed.closeAuthority = tokenAccount.closeAuthority.toBase58();
    const extensions = tokenExtensionsJson(tokenAccount);
    if (extensions.length > 0) parsed.extensions = extensions;
    return { program, parsed: { type: "account", info: parsed }, space };
  }
  const mint = attempt(() => splToken.unpackMint(address, info, programId));
  if (mint) {
    const parsed: Record<string, unknown> = {
      mintAuthority: mint.mintAuthority?.toBase58() ?? null,
      supply: mint.supply.toString(),
      decimals: mint.decimals,
      isInitialized: mint.isInitialized,
      freezeAuthority: mint.freezeAuthority?.toBase58() ?? null,
    };
    const extensions = tokenExtensionsJson(mint);
    if (extensions.length > 0) parsed.extensions = extensions;
    return { program, parsed: { type: "mint", info: parsed }, space };
  }
  const multisig = attempt(() => splToken.unpackMultisig(address, info, programId));
  if (multisig) {
    const signers = [multisig.signer1, multisig.signer2, multisig.signer3, multisig.signer4, multisig.signer5, multisig.signer6, multisig.signer7, multisig.signer8, multisig.signer9, multisig.signer10, multisig.signer11]
      .filter((signer) => !signer.equals(PublicKey.default))
      .map((signer) => signer.toBase58());
    return { program, parsed: { type: "multisig", info: { numRequiredSigners: multisig.m, numValidSigners: multisig.n, isInitialized: multisig.isInitialized, signers } }, space };
  }
  return null;
}

function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

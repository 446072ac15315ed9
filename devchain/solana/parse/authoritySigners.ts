import type { AccountMeta } from "@solana/web3.js";

/**
 * The authority of a token instruction the way real nodes show it: a single signer
 * under `singleField`, or a multisig account under `multisigField` plus its `signers`.
 */
export function authoritySigners(
  authority: AccountMeta,
  multiSigners: AccountMeta[],
  singleField: string,
  multisigField: string,
): Record<string, unknown> {
  if (multiSigners.length === 0) return { [singleField]: authority.pubkey.toBase58() };
  return { [multisigField]: authority.pubkey.toBase58(), signers: multiSigners.map((signer) => signer.pubkey.toBase58()) };
}

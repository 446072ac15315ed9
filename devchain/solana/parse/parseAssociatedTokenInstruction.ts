import type { ParsedInstructionBody } from "./parsedInstruction.ts";

/**
 * Parses an Associated Token Account program instruction (empty data or 0: create,
 * 1: createIdempotent, 2: recoverNested) into a real node's `{type, info}`.
 */
export function parseAssociatedTokenInstruction(accounts: string[], data: Uint8Array): ParsedInstructionBody | null {
  const kind = data.length === 0 ? 0 : data.length === 1 ? data[0] : undefined;
  if (kind === 0 || kind === 1) {
    if (accounts.length < 6) return null;
    const [source, account, wallet, mint, systemProgram, tokenProgram] = accounts;
    return { type: kind === 0 ? "create" : "createIdempotent", info: { source, account, wallet, mint, systemProgram, tokenProgram } };
  }
  if (kind === 2) {
    if (accounts.length < 7) return null;
    const [nestedSource, nestedMint, destination, nestedOwner, ownerMint, wallet, tokenProgram] = accounts;
    return { type: "recoverNested", info: { nestedSource, nestedMint, destination, nestedOwner, ownerMint, wallet, tokenProgram } };
  }
  return null;
}

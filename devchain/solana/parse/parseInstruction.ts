import { getBase58Decoder } from "@solana/kit";
import { PublicKey, TransactionInstruction } from "@solana/web3.js";
import { isMemoProgram, isTokenProgram, programIds } from "../ledger/programIds.ts";
import { parseAssociatedTokenInstruction } from "./parseAssociatedTokenInstruction.ts";
import type { ParsedInstruction, ParsedInstructionBody, PartiallyDecodedInstruction } from "./parsedInstruction.ts";
import { parseSystemInstruction } from "./parseSystemInstruction.ts";
import { parseTokenInstruction } from "./parseTokenInstruction.ts";

/**
 * An instruction in jsonParsed form: `{program, programId, parsed}` for the programs a
 * real node parses (system, spl-token/Token-2022, associated token account, memo),
 * otherwise partially decoded `{programId, accounts, data}`.
 */
export function parseInstruction(
  programId: string,
  accounts: string[],
  data: Uint8Array,
  stackHeight: number | null,
): ParsedInstruction | PartiallyDecodedInstruction {
  const parsed = parseBody(programId, accounts, data);
  if (parsed) return { program: parsed.program, programId, parsed: parsed.body, stackHeight };
  return { programId, accounts, data: getBase58Decoder().decode(data), stackHeight };
}

function parseBody(programId: string, accounts: string[], data: Uint8Array): { program: string; body: ParsedInstructionBody } | null {
  try {
    if (isMemoProgram(programId)) {
      return { program: "spl-memo", body: new TextDecoder("utf-8", { fatal: true }).decode(data) };
    }
    if (programId === programIds.associatedToken) {
      const body = parseAssociatedTokenInstruction(accounts, data);
      return body ? { program: "spl-associated-token-account", body } : null;
    }
    if (programId !== programIds.system && !isTokenProgram(programId)) return null;
    const instruction = new TransactionInstruction({
      programId: new PublicKey(programId),
      keys: accounts.map((account) => ({ pubkey: new PublicKey(account), isSigner: false, isWritable: false })),
      data: Buffer.from(data),
    });
    const body = programId === programIds.system ? parseSystemInstruction(instruction) : parseTokenInstruction(instruction);
    return body ? { program: programId === programIds.system ? "system" : "spl-token", body } : null;
  } catch {
    return null; // real nodes fall back to the partially decoded form too
  }
}

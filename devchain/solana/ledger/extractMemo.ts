import type { Message, MessageV0 } from "@solana/web3.js";
import { isMemoProgram } from "./programIds.ts";

/** The `memo` field of getSignaturesForAddress: each top-level memo as "[<bytes>] <text>", joined by "; ". */
export function extractMemo(message: Message | MessageV0, accountKeys: string[]): string | null {
  const memos: string[] = [];
  for (const instruction of message.compiledInstructions) {
    const programId = accountKeys[instruction.programIdIndex];
    if (programId === undefined || !isMemoProgram(programId)) continue;
    const data = Buffer.from(instruction.data);
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(data);
    } catch {
      text = "(unparsable)";
    }
    memos.push(`[${data.length}] ${text}`);
  }
  return memos.length === 0 ? null : memos.join("; ");
}

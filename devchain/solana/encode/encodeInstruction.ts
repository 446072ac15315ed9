import { getBase58Decoder } from "@solana/kit";
import type { RecordedInstruction } from "../ledger/transactionRecord.ts";
import { parseInstruction } from "../parse/parseInstruction.ts";

/** An instruction as getTransaction shows it: compiled (`json`) or parsed (`jsonParsed`). */
export function encodeInstruction(instruction: RecordedInstruction, accountKeys: string[], encoding: "json" | "jsonParsed"): unknown {
  if (encoding === "jsonParsed") {
    return parseInstruction(
      accountKeys[instruction.programIdIndex]!,
      instruction.accounts.map((index) => accountKeys[index]!),
      instruction.data,
      instruction.stackHeight,
    );
  }
  return {
    programIdIndex: instruction.programIdIndex,
    accounts: instruction.accounts,
    data: getBase58Decoder().decode(instruction.data),
    stackHeight: instruction.stackHeight,
  };
}

import { getBase58Decoder } from "@solana/kit";
import type { TransactionMetadata } from "litesvm";
import type { InnerInstructions } from "./transactionRecord.ts";

export interface ExecutionMeta {
  logMessages: string[];
  innerInstructions: InnerInstructions[];
  computeUnitsConsumed: bigint;
  returnData: { programId: string; data: Uint8Array } | null;
}

/** What litesvm reports about an execution, in the ledger's shapes. */
export function readExecutionMeta(meta: TransactionMetadata): ExecutionMeta {
  const innerInstructions: InnerInstructions[] = [];
  meta.innerInstructions().forEach((list, index) => {
    if (list.length === 0) return; // a real node lists only instructions that made calls
    innerInstructions.push({
      index,
      instructions: list.map((inner) => {
        const instruction = inner.instruction();
        return {
          programIdIndex: instruction.programIdIndex(),
          accounts: Array.from(instruction.accounts()),
          data: instruction.data(),
          stackHeight: inner.stackHeight(),
        };
      }),
    });
  });
  const returned = meta.returnData();
  const returnData = returned.data().length > 0 ? { programId: getBase58Decoder().decode(returned.programId()), data: returned.data() } : null;
  return {
    logMessages: meta.logs(),
    innerInstructions,
    computeUnitsConsumed: meta.computeUnitsConsumed(),
    returnData,
  };
}

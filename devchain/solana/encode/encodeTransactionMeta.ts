import type { TransactionRecord } from "../ledger/transactionRecord.ts";
import { encodeInstruction } from "./encodeInstruction.ts";
import { encodeTokenBalance } from "./encodeTokenBalance.ts";

/**
 * A transaction's `meta` as getTransaction and getBlock return it. jsonParsed parses
 * inner instructions and leaves out `loadedAddresses` (the keys carry their source there).
 */
export function encodeTransactionMeta(record: TransactionRecord, encoding: "json" | "jsonParsed"): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    err: record.err?.json ?? null,
    status: record.err ? { Err: record.err.json } : { Ok: null },
    fee: Number(record.fee),
    preBalances: record.preBalances.map(Number),
    postBalances: record.postBalances.map(Number),
    innerInstructions: record.innerInstructions.map((inner) => ({
      index: inner.index,
      instructions: inner.instructions.map((instruction) => encodeInstruction(instruction, record.accountKeys, encoding)),
    })),
    logMessages: record.logMessages,
    preTokenBalances: record.preTokenBalances.map(encodeTokenBalance),
    postTokenBalances: record.postTokenBalances.map(encodeTokenBalance),
    rewards: [],
  };
  if (encoding === "json") meta.loadedAddresses = record.loadedAddresses;
  if (record.returnData) {
    meta.returnData = { programId: record.returnData.programId, data: [Buffer.from(record.returnData.data).toString("base64"), "base64"] };
  }
  meta.computeUnitsConsumed = Number(record.computeUnitsConsumed);
  return meta;
}

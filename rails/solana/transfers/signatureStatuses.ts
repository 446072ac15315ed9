import type { Connection, RpcResponseAndContext, SignatureStatus } from "@solana/web3.js";
import { STATUSES_PER_CALL } from "../rpcLimits.ts";

/**
 * The statuses of a transfer's signatures (each one it was signed with), searched through
 * the node's history, in calls of at most `STATUSES_PER_CALL` (the node refuses more).
 * The context is the least advanced of the answers: what all of them have seen.
 */
export async function signatureStatuses(connection: Connection, signatures: string[]): Promise<RpcResponseAndContext<(SignatureStatus | null)[]>> {
  const chunks: string[][] = [];
  for (let i = 0; i < signatures.length; i += STATUSES_PER_CALL) chunks.push(signatures.slice(i, i + STATUSES_PER_CALL));
  const answers = await Promise.all(chunks.map((chunk) => connection.getSignatureStatuses(chunk, { searchTransactionHistory: true })));
  if (answers.length === 0) return { context: { slot: 0 }, value: [] };
  return {
    context: { slot: Math.min(...answers.map((a) => a.context.slot)) },
    value: answers.flatMap((a) => a.value),
  };
}

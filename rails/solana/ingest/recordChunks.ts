import type { ConfirmedSignatureInfo, Connection, ParsedTransactionWithMeta } from "@solana/web3.js";
import type { Db } from "../../../db/client.ts";
import { CALLS_PER_BATCH } from "../rpcLimits.ts";
import type { PaymentWatch } from "../watchedAccount.ts";
import { creditOf, isStamped, markFinalized, servedBySignature, stampBlockTimes, type UnstampedCredit } from "./readCredits.ts";
import { recordCreditEntries, type CreditEntry, type FoundBy } from "./recordCredits.ts";

export type ChunkDeps = {
  db: Db;
  connection: Connection;
  chainId: string;
  channel: string;
  /** The chain's finalized watermark when the scan began (absent: every credit's status is asked). */
  finalizedSlot?: bigint;
};

/** Signatures listed at one watched address (oldest first); `moveCursor`: its cursor follows what is recorded. */
export type ListedChunk = { watch: PaymentWatch; foundBy: FoundBy; oldestFirst: readonly ConfirmedSignatureInfo[]; moveCursor: boolean };

/**
 * Reads and records chunks of listed signatures, of one address or many, as few round
 * trips as the node allows: their transactions in JSON-RPC batches of
 * `CALLS_PER_BATCH` (`getParsedTransactions`, jsonParsed, versions 0), the statuses
 * needed in batches of `STATUSES_PER_CALL`, and every address's credits and cursor in one
 * database transaction. Each chunk ends as it would alone: complete when its cursor moved
 * past all of it. A failed call fails them all (nothing recorded; the caller may try each
 * alone, so one address whose transactions a node refuses fails alone).
 */
export async function recordChunks(deps: ChunkDeps, chunks: readonly ListedChunk[]): Promise<Array<{ inserted: number; complete: boolean }>> {
  const wanted = [...new Set(chunks.flatMap((chunk) => chunk.oldestFirst.filter((s) => s.err === null).map((s) => s.signature)))];
  const transactions = new Map<string, ParsedTransactionWithMeta | null>();
  for (let i = 0; i < wanted.length; i += CALLS_PER_BATCH) {
    const asked = wanted.slice(i, i + CALLS_PER_BATCH);
    const fetched = await deps.connection.getParsedTransactions(asked, { maxSupportedTransactionVersion: 0, commitment: "confirmed" });
    for (const [signature, transaction] of servedBySignature(asked, fetched)) transactions.set(signature, transaction);
  }
  const read = chunks.map((chunk) => readChunk(chunk, transactions));
  // A credit whose block time the node cannot tell yet stops its address's pass before it: that time decides whether it paid in time.
  await stampBlockTimes(deps.connection, read.flatMap((r) => r.read));
  const entries: CreditEntry[] = read.map((r, i) => {
    const { watch, foundBy, moveCursor } = chunks[i]!;
    const cut = r.read.findIndex((c) => !isStamped(c));
    if (cut >= 0) {
      r.signatures.splice(r.signatures.findIndex((s) => s.signature === r.read[cut]!.signature));
      r.complete = false;
    }
    const credits = r.read.slice(0, cut >= 0 ? cut : undefined).filter(isStamped);
    return { foundBy, credits, ...(moveCursor ? { scanned: { address: watch.scan, signatures: r.signatures } } : {}) };
  });
  // Only a credit at or below the watermark needs its status now (it would be refused unchecked);
  // newer ones are checked by the finality pass, many at a time: one status call less per scan.
  const due = entries.flatMap((e) => e.credits).filter((c) => deps.finalizedSlot === undefined || c.slot <= deps.finalizedSlot);
  await markFinalized(deps.connection, [...due]);
  const recorded = await recordCreditEntries(deps.db, { chainId: deps.chainId, channel: deps.channel, entries });
  return recorded.map(({ inserted, refused }, i) => ({ inserted, complete: read[i]!.complete && refused === null }));
}

/**
 * The credits a chunk's transactions carry for its watch, oldest first, and the signatures
 * looked at. A transaction listed but not served yet, or served without its status metadata
 * (no balances to read a credit from), stops the chunk before it: looked at again next pass.
 */
function readChunk(chunk: ListedChunk, transactions: ReadonlyMap<string, ParsedTransactionWithMeta | null>) {
  const signatures: Array<{ signature: string; slot: bigint }> = [];
  const read: UnstampedCredit[] = [];
  let complete = true;
  for (const info of chunk.oldestFirst) {
    if (info.err === null) {
      const transaction = transactions.get(info.signature);
      if (!transaction?.meta) {
        complete = false;
        break;
      }
      const credit = creditOf(chunk.watch, info.signature, transaction, info.blockTime);
      if (credit) read.push(credit);
    }
    signatures.push({ signature: info.signature, slot: BigInt(info.slot) });
  }
  return { signatures, read, complete };
}

import { PublicKey, type ConfirmedSignatureInfo, type Connection, type ParsedTransactionWithMeta } from "@solana/web3.js";
import type { Db } from "../../../db/client.ts";
import { STATUSES_PER_CALL } from "../rpcLimits.ts";
import { mentions, tokenBalanceDelta } from "../tokenBalanceDelta.ts";
import type { PaymentWatch } from "../watchedAccount.ts";
import { addressCursor, recordCredits, type FoundBy, type FoundCredit } from "./recordCredits.ts";
import { finishListing, saveListing, scanStart, type SignatureAt, type UnfinishedListing } from "./addressScans.ts";

const PAGE = 1000;
/** Transactions fetched (one batched call) and recorded at a time. */
const CHUNK = 100;

type ScanDeps = {
  db: Db;
  connection: Connection;
  chainId: string;
  channel: string;
  pageSize?: number;
  chunkSize?: number;
  /** The chain's finalized watermark when the scan began (absent: every credit's status is asked). */
  finalizedSlot?: bigint;
};

/**
 * One pass over one watched address: every signature since its cursor
 * (`getSignaturesForAddress(address, {until: cursor})`, at `confirmed`), each transaction
 * fetched in batches (`getTransaction`, jsonParsed, versions 0) and each credit read from the
 * watched token account's balance change. A single page is recorded oldest first, a chunk
 * at a time, the cursor moved past each chunk. A listing of several pages records each page
 * as it comes and keeps where it stands (`addressScans.ts`): a failure on page 2 resumes at
 * page 2 on the next pass, with page 1's credits kept; the cursor moves to the listing's
 * newest signature once it has reached the cursor it started from.
 * Failed transactions are skipped (and passed). A transaction the node cannot return yet
 * stops the pass before it; the next pass starts there again.
 * Returns how many credits were new, and whether the pass read everything listed
 * (`complete`: nothing stopped it, nothing was refused): only then does it vouch for the
 * address up to the slot the caller read first (the address's evidence horizon).
 * That slot is the list's `minContextSlot`: a node behind it (another one behind the same
 * URL) refuses instead of listing fewer signatures, and the pass fails.
 */
export async function scanAddress(deps: ScanDeps, watch: PaymentWatch, foundBy: FoundBy, minContextSlot?: number): Promise<{ inserted: number; complete: boolean }> {
  let inserted = 0;
  const start = await scanStart(deps.db, deps.chainId, watch.scan);
  deps = { ...deps, finalizedSlot: start.finalizedSlot };
  let cursor = start.cursor;
  if (start.listing) {
    const resumed = await continueListing(deps, watch, foundBy, start.listing, minContextSlot);
    inserted += resumed.inserted;
    if (!resumed.complete) return { inserted, complete: false };
    cursor = await addressCursor(deps.db, deps.chainId, watch.scan);
  }
  const until = cursor ?? undefined;
  const limit = deps.pageSize ?? PAGE;
  const first = await deps.connection.getSignaturesForAddress(new PublicKey(watch.scan), { until, limit, minContextSlot }, "confirmed");
  if (first.length < limit) {
    const pass = await recordOldestFirst(deps, watch, foundBy, [...first].reverse(), true);
    return { inserted: inserted + pass.inserted, complete: pass.complete };
  }
  const listing: UnfinishedListing = { until: until ?? null, top: at(first[0]!), before: null };
  await saveListing(deps.db, deps.chainId, watch.scan, listing);
  const pass = await continueListing(deps, watch, foundBy, listing, minContextSlot, first);
  return { inserted: inserted + pass.inserted, complete: pass.complete };
}

const at = (info: ConfirmedSignatureInfo): SignatureAt => ({ signature: info.signature, slot: BigInt(info.slot) });

/**
 * Lists an unfinished listing's pages below its `before` (or `firstPage`, just listed),
 * recording each and noting how far it got; once it reaches its `until`, the cursor moves
 * to its top. A page not fully recorded leaves `before` where it was: that page is listed again.
 */
async function continueListing(
  deps: ScanDeps,
  watch: PaymentWatch,
  foundBy: FoundBy,
  listing: UnfinishedListing,
  minContextSlot: number | undefined,
  firstPage?: ConfirmedSignatureInfo[],
): Promise<{ inserted: number; complete: boolean }> {
  const limit = deps.pageSize ?? PAGE;
  let inserted = 0;
  let before = listing.before;
  for (let page = firstPage; ; page = undefined) {
    // A node that has not reached the `before` signature's slot refuses rather than answering an empty page (the list's end).
    page ??= await deps.connection.getSignaturesForAddress(
      new PublicKey(watch.scan),
      { until: listing.until ?? undefined, before: before?.signature, limit, minContextSlot: before ? Math.max(minContextSlot ?? 0, Number(before.slot)) : minContextSlot },
      "confirmed",
    );
    const pass = await recordOldestFirst(deps, watch, foundBy, [...page].reverse(), false);
    inserted += pass.inserted;
    if (!pass.complete) return { inserted, complete: false };
    if (page.length < limit) break;
    before = at(page.at(-1)!);
    await saveListing(deps.db, deps.chainId, watch.scan, { ...listing, before });
  }
  await finishListing(deps.db, deps.chainId, watch.scan, listing.top);
  return { inserted, complete: true };
}

/** Records signatures (oldest first) a chunk at a time; `moveCursor`: the address's cursor follows each chunk. */
async function recordOldestFirst(deps: ScanDeps, watch: PaymentWatch, foundBy: FoundBy, oldestFirst: ConfirmedSignatureInfo[], moveCursor: boolean) {
  const chunkSize = deps.chunkSize ?? CHUNK;
  let inserted = 0;
  for (let i = 0; i < oldestFirst.length; i += chunkSize) {
    const chunk = await recordChunk(deps, watch, foundBy, oldestFirst.slice(i, i + chunkSize), moveCursor);
    inserted += chunk.inserted;
    // Stopped inside the chunk: the cursor stays before where it stopped, and so must the chunks after it.
    if (!chunk.complete) return { inserted, complete: false };
  }
  return { inserted, complete: true };
}

/** Reads and records one chunk of listed signatures (oldest first); complete when the cursor moved past all of it. */
async function recordChunk(deps: ScanDeps, watch: PaymentWatch, foundBy: FoundBy, chunk: ConfirmedSignatureInfo[], moveCursor: boolean): Promise<{ inserted: number; complete: boolean }> {
  const wanted = chunk.filter((s) => s.err === null).map((s) => s.signature);
  const fetched = wanted.length === 0 ? [] : await deps.connection.getParsedTransactions(wanted, { maxSupportedTransactionVersion: 0, commitment: "confirmed" });
  const transactions = servedBySignature(wanted, fetched);
  const signatures: Array<{ signature: string; slot: bigint }> = [];
  const read: UnstampedCredit[] = [];
  let complete = true;
  for (const info of chunk) {
    if (info.err === null) {
      const transaction = transactions.get(info.signature);
      // Listed but not served yet, or served without its status metadata (no balances to
      // read a credit from): look again next pass — the cursor stays before it.
      if (!transaction?.meta) {
        complete = false;
        break;
      }
      const credit = creditOf(watch, info.signature, transaction, info.blockTime);
      if (credit) read.push(credit);
    }
    signatures.push({ signature: info.signature, slot: BigInt(info.slot) });
  }
  // A credit whose block time the node cannot tell yet stops the pass before it: that time decides whether it paid in time.
  await stampBlockTimes(deps.connection, read);
  const cut = read.findIndex((c) => !isStamped(c));
  if (cut >= 0) {
    signatures.splice(signatures.findIndex((s) => s.signature === read[cut]!.signature));
    complete = false;
  }
  const credits = read.slice(0, cut >= 0 ? cut : undefined).filter(isStamped);
  // Only a credit at or below the watermark needs its status now (it would be refused unchecked);
  // newer ones are checked by the finality pass, many at a time: one status call less per scan.
  await markFinalized(deps.connection, credits.filter((c) => deps.finalizedSlot === undefined || c.slot <= deps.finalizedSlot));
  const { inserted, refused } = await recordCredits(deps.db, { chainId: deps.chainId, channel: deps.channel, foundBy, credits, ...(moveCursor ? { scanned: { address: watch.scan, signatures } } : {}) });
  return { inserted, complete: complete && refused === null };
}

/**
 * A batch's transactions by the signature each carries, not by position: @solana/web3.js
 * matches a batch's answers to its calls by position, and a provider may answer a batch
 * in any order — a credit stored under another transaction's signature counts twice once
 * the real one is read. A signature no answer carries was not served.
 */
export function servedBySignature(wanted: readonly string[], fetched: ReadonlyArray<ParsedTransactionWithMeta | null>): Map<string, ParsedTransactionWithMeta | null> {
  const bySignature = new Map(fetched.filter((t) => t !== null).map((t) => [t.transaction.signatures[0], t] as const));
  return new Map(wanted.map((signature) => [signature, bySignature.get(signature) ?? null]));
}

/**
 * The signatures at `address`, page by page (newest first), down to `until` (exclusive).
 * A page after the first asks for the slot of its `before` signature at least: a node that
 * has not reached it (another one behind the same URL) does not know that signature and
 * answers an empty page, which would read as the end of the list; asked so, it refuses
 * instead, and the caller fails.
 */
export async function* signaturePages(
  connection: Connection,
  address: string,
  options: { until?: string; limit: number; minContextSlot?: number },
  commitment: "confirmed" | "finalized",
): AsyncGenerator<ConfirmedSignatureInfo[]> {
  const { until, limit } = options;
  for (let before: ConfirmedSignatureInfo | undefined; ; ) {
    const minContextSlot = before ? Math.max(options.minContextSlot ?? 0, before.slot) : options.minContextSlot;
    const page = await connection.getSignaturesForAddress(new PublicKey(address), { until, before: before?.signature, limit, minContextSlot }, commitment);
    yield page;
    if (page.length < limit) return;
    before = page.at(-1);
  }
}

/** A credit as read from its transaction: a node may not tell the block's time (null) until asked for it by slot. */
export type UnstampedCredit = Omit<FoundCredit, "blockTime"> & { blockTime: Date | null };

export const isStamped = (credit: UnstampedCredit): credit is FoundCredit => credit.blockTime !== null;

/**
 * The credit a transaction carries for a watched payment, if any (Solana Pay: only with the
 * reference among its keys). Its time is the transaction's block time, or the one its
 * signature was listed with; never our clock, which would make money paid in time look late.
 */
export function creditOf(watch: PaymentWatch, signature: string, transaction: ParsedTransactionWithMeta, listedBlockTime?: number | null): UnstampedCredit | null {
  if (watch.source === "settlement" && !mentions(transaction, watch.scan)) return null;
  const delta = tokenBalanceDelta(transaction, watch.credit);
  if (!delta || delta.owner !== watch.owner) return null;
  const seconds = transaction.blockTime ?? listedBlockTime ?? null;
  return {
    signature,
    account: watch.credit.account,
    paymentId: watch.paymentId,
    source: watch.source,
    owner: delta.owner,
    payer: delta.payer,
    mint: watch.credit.mint,
    tokenProgram: watch.credit.tokenProgram,
    amount: delta.amount,
    slot: BigInt(transaction.slot),
    blockTime: seconds === null ? null : new Date(seconds * 1000),
    accountIndex: delta.accountIndex,
    finalized: false,
  };
}

/** Asks the node the block time of each credit's slot that came without one (`getBlockTime`); those it cannot tell stay null. */
export async function stampBlockTimes(connection: Connection, credits: UnstampedCredit[]): Promise<void> {
  const slots = [...new Set(credits.filter((c) => !isStamped(c)).map((c) => c.slot))];
  const times = new Map(await Promise.all(slots.map(async (slot) => [slot, await connection.getBlockTime(Number(slot)).catch(() => null)] as const)));
  for (const credit of credits) {
    const seconds = credit.blockTime === null ? times.get(credit.slot) : null;
    if (seconds !== null && seconds !== undefined) credit.blockTime = new Date(seconds * 1000);
  }
}

/** Marks the credits whose transactions the node already has at `finalized` (asked in batches of the most a node answers). */
export async function markFinalized(connection: Connection, credits: FoundCredit[]): Promise<void> {
  for (let i = 0; i < credits.length; i += STATUSES_PER_CALL) {
    const batch = credits.slice(i, i + STATUSES_PER_CALL);
    const { value } = await connection.getSignatureStatuses(batch.map((c) => c.signature), { searchTransactionHistory: true });
    batch.forEach((c, j) => (c.finalized = value[j]?.confirmationStatus === "finalized" && value[j]?.err === null));
  }
}

import { PublicKey, type ConfirmedSignatureInfo, type Connection } from "@solana/web3.js";
import type { PaymentWatch } from "../watchedAccount.ts";
import { addressCursor, type FoundBy } from "./recordCredits.ts";
import { recordChunks, type ChunkDeps } from "./recordChunks.ts";
import { finishListing, saveListing, scanStart, type SignatureAt, type UnfinishedListing } from "./addressScans.ts";

const PAGE = 1000;
/** Transactions fetched (one batched call) and recorded at a time. */
const CHUNK = 100;

export type ScanDeps = ChunkDeps & { pageSize?: number; chunkSize?: number };

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
  const start = await scanStart(deps.db, deps.chainId, watch.scan);
  return scanFrom({ ...deps, finalizedSlot: start.finalizedSlot }, watch, foundBy, start, minContextSlot);
}

/** `scanAddress` from the address's cursor and unfinished listing, already read (`scanStarts`). */
export async function scanFrom(
  deps: ScanDeps,
  watch: PaymentWatch,
  foundBy: FoundBy,
  start: { cursor: string | null; listing: UnfinishedListing | null },
  minContextSlot?: number,
): Promise<{ inserted: number; complete: boolean }> {
  let inserted = 0;
  let cursor = start.cursor;
  if (start.listing) {
    const resumed = await continueListing(deps, watch, foundBy, start.listing, minContextSlot);
    inserted += resumed.inserted;
    if (!resumed.complete) return { inserted, complete: false };
    cursor = await addressCursor(deps.db, deps.chainId, watch.scan);
  }
  const until = cursor ?? undefined;
  const first = await listFirstPage(deps, watch, until, minContextSlot);
  const pass = await recordFirstPage(deps, watch, foundBy, until, first, minContextSlot);
  return { inserted: inserted + pass.inserted, complete: pass.complete };
}

/** The newest page of signatures at the watched address above `until` (newest first), at `confirmed`. */
export const listFirstPage = (deps: ScanDeps, watch: PaymentWatch, until: string | undefined, minContextSlot?: number): Promise<ConfirmedSignatureInfo[]> =>
  deps.connection.getSignaturesForAddress(new PublicKey(watch.scan), { until, limit: deps.pageSize ?? PAGE, minContextSlot }, "confirmed");

/** Records a first page just listed (down to `until`); a full one starts a listing of several pages. */
export async function recordFirstPage(
  deps: ScanDeps,
  watch: PaymentWatch,
  foundBy: FoundBy,
  until: string | undefined,
  first: ConfirmedSignatureInfo[],
  minContextSlot?: number,
): Promise<{ inserted: number; complete: boolean }> {
  if (first.length < (deps.pageSize ?? PAGE)) return recordOldestFirst(deps, watch, foundBy, [...first].reverse(), true);
  const listing: UnfinishedListing = { until: until ?? null, top: at(first[0]!), before: null };
  await saveListing(deps.db, deps.chainId, watch.scan, listing);
  return continueListing(deps, watch, foundBy, listing, minContextSlot, first);
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
    const [chunk] = await recordChunks(deps, [{ watch, foundBy, oldestFirst: oldestFirst.slice(i, i + chunkSize), moveCursor }]);
    inserted += chunk!.inserted;
    // Stopped inside the chunk: the cursor stays before where it stopped, and so must the chunks after it.
    if (!chunk!.complete) return { inserted, complete: false };
  }
  return { inserted, complete: true };
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


import type { ConfirmedSignatureInfo } from "@solana/web3.js";
import { BatchingConnection, type SignatureListing } from "../batchingConnection.ts";
import { CALLS_PER_BATCH } from "../rpcLimits.ts";
import type { PaymentWatch } from "../watchedAccount.ts";
import { scanStarts } from "./addressScans.ts";
import type { FoundBy } from "./recordCredits.ts";
import { recordChunks, type ListedChunk } from "./recordChunks.ts";
import { listFirstPage, recordFirstPage, scanFrom, type ScanDeps } from "./scanAddress.ts";

/** Addresses a pass handles at once beyond the batches: those listed alone, and those with a pass of their own. */
const LISTINGS_AT_ONCE = 8;
const PAGE = 1000;

export type ScanRequest = { watch: PaymentWatch; foundBy: FoundBy };
export type ScanResult = { inserted: number; complete: boolean };

/**
 * `scanAddress` over many watched addresses (distinct) at once, each ending as it would
 * alone (an `Error` in its place: that address's pass failed). Their cursors are read in
 * one query and their newest pages listed in JSON-RPC batches (`BatchingConnection`; one a
 * batch did not answer is listed alone, through the failover); the addresses with few new signatures (one
 * page, one chunk) — a burst of payments, each account paid once — are read and recorded
 * together (`recordChunks`: their transactions in JSON-RPC batches, statuses in one call,
 * credits and cursors in one database transaction). A group whose calls fail is tried again
 * address by address, so an address whose transactions a node refuses fails alone and the
 * others go on. An address with more (a full page, a listing under way) gets its own pass.
 */
export async function scanAddresses(deps: ScanDeps, requests: readonly ScanRequest[], minContextSlot?: number): Promise<Array<ScanResult | Error>> {
  const { starts, finalizedSlot } = await scanStarts(deps.db, deps.chainId, requests.map((r) => r.watch.scan));
  deps = { ...deps, finalizedSlot };
  const limit = deps.pageSize ?? PAGE;
  const fitsOneChunk = Math.min(deps.chunkSize ?? CALLS_PER_BATCH, CALLS_PER_BATCH);
  const results: Array<ScanResult | Error> = requests.map(() => new Error("not scanned"));
  const together: Array<{ index: number; chunk: ListedChunk }> = [];
  const settle = async (index: number, work: () => Promise<ScanResult | null>) => {
    try {
      const result = await work();
      if (result) results[index] = result;
    } catch (error) {
      results[index] = error instanceof Error ? error : new Error(String(error));
    }
  };
  const startOf = (request: ScanRequest) => starts.get(request.watch.scan) ?? { cursor: null, listing: null };
  const listed = await listTogether(deps, requests.map((r) => (startOf(r).listing ? null : { address: r.watch.scan, until: startOf(r).cursor ?? undefined, limit, minContextSlot })));
  await eachAtMost(LISTINGS_AT_ONCE, requests, (request, index) =>
    settle(index, async () => {
      const { watch, foundBy } = request;
      const start = startOf(request);
      if (start.listing) return scanFrom(deps, watch, foundBy, start, minContextSlot);
      const until = start.cursor ?? undefined;
      // Not listed in the batch (refused there, or no batch): listed alone, through the failover.
      const first = listed[index] ?? (await listFirstPage(deps, watch, until, minContextSlot));
      if (first.length === 0) return { inserted: 0, complete: true };
      if (first.length >= limit || first.length > fitsOneChunk) return recordFirstPage(deps, watch, foundBy, until, first, minContextSlot);
      together.push({ index, chunk: { watch, foundBy, oldestFirst: [...first].reverse(), moveCursor: true } });
      return null;
    }),
  );
  for (const group of groupsOf(together, fitsOneChunk)) {
    try {
      const recorded = await recordChunks(deps, group.map((g) => g.chunk));
      group.forEach((g, i) => (results[g.index] = recorded[i]!));
    } catch (error) {
      if (group.length === 1) results[group[0]!.index] = error instanceof Error ? error : new Error(String(error));
      else for (const g of group) await settle(g.index, async () => (await recordChunks(deps, [g.chunk]))[0]!);
    }
  }
  return results;
}

/**
 * The newest page of each listing (null: none wanted), in JSON-RPC batches of
 * `CALLS_PER_BATCH` when the connection sends them (`BatchingConnection`); undefined where a
 * listing was not answered in a batch (the node refused that one, or the whole request failed).
 */
async function listTogether(deps: ScanDeps, listings: ReadonlyArray<SignatureListing | null>): Promise<Array<ConfirmedSignatureInfo[] | undefined>> {
  const pages: Array<ConfirmedSignatureInfo[] | undefined> = listings.map(() => undefined);
  if (!(deps.connection instanceof BatchingConnection)) return pages;
  const wanted = listings.flatMap((listing, index) => (listing ? [{ listing, index }] : []));
  for (let i = 0; i < wanted.length; i += CALLS_PER_BATCH) {
    const batch = wanted.slice(i, i + CALLS_PER_BATCH);
    const answers = await deps.connection.getSignaturesForAddresses(batch.map((w) => w.listing)).catch(() => null);
    batch.forEach((w, j) => {
      const answer = answers?.[j];
      if (Array.isArray(answer)) pages[w.index] = answer;
    });
  }
  return pages;
}

/** Chunks in order, grouped so each group's transactions to fetch fit one JSON-RPC batch. */
function groupsOf<T extends { chunk: ListedChunk }>(items: readonly T[], perGroup: number): T[][] {
  const groups: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const item of items) {
    const wanted = item.chunk.oldestFirst.filter((s: ConfirmedSignatureInfo) => s.err === null).length;
    if (current.length > 0 && size + wanted > perGroup) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += wanted;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** Runs `work` over `items`, at most `limit` at once. */
async function eachAtMost<T>(limit: number, items: readonly T[], work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

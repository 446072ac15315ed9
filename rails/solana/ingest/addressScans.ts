import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../../db/client.ts";

/** A signature and its slot: where a listing stands. */
export type SignatureAt = { signature: string; slot: bigint };

/** A listing of more than one page not finished yet: resumed below `before`, down to `until`; the cursor moves to `top` once done. */
export type UnfinishedListing = { until: string | null; top: SignatureAt; before: SignatureAt | null };

type ListingRow = { listing_until: string | null; listing_top_signature: string | null; listing_top_slot: string | null; listing_before_signature: string | null; listing_before_slot: string | null };

const listingOf = (row: ListingRow | undefined): UnfinishedListing | null => {
  if (!row?.listing_top_signature || row.listing_top_slot === null) return null;
  return {
    until: row.listing_until,
    top: { signature: row.listing_top_signature, slot: BigInt(row.listing_top_slot) },
    before: row.listing_before_signature && row.listing_before_slot !== null ? { signature: row.listing_before_signature, slot: BigInt(row.listing_before_slot) } : null,
  };
};

/** The address's unfinished listing, if one is under way. */
export async function unfinishedListing(db: Db, chainId: string, address: string): Promise<UnfinishedListing | null> {
  return (await scanStart(db, chainId, address)).listing;
}

/**
 * What a scan of the address starts from, in one read: its cursor, its unfinished listing,
 * and the chain's finalized watermark (credits above it need no `finalized` check yet: the
 * subscriber's finality pass checks them; one at or below it would be refused unchecked).
 */
export async function scanStart(db: Db, chainId: string, address: string): Promise<{ cursor: string | null; listing: UnfinishedListing | null; finalizedSlot: bigint }> {
  const { starts, finalizedSlot } = await scanStarts(db, chainId, [address]);
  return { ...starts.get(address)!, finalizedSlot };
}

/** `scanStart` for many addresses in one read. */
export async function scanStarts(
  db: Db,
  chainId: string,
  addresses: readonly string[],
): Promise<{ starts: Map<string, { cursor: string | null; listing: UnfinishedListing | null }>; finalizedSlot: bigint }> {
  const rows = await queryRows<ListingRow & { address: string; last_signature: string | null; finalized_slot: string | null }>(db, sql`
    select a.address, c.last_signature, s.listing_until, s.listing_top_signature, s.listing_top_slot::text, s.listing_before_signature, s.listing_before_slot::text,
           h.finalized_slot::text
    from unnest(${sql.param([...addresses])}::text[]) as a(address)
    left join solana_account_cursors c on c.chain_id = ${chainId} and c.address = a.address
    left join solana_address_scans s on s.chain_id = ${chainId} and s.address = a.address
    left join solana_ingest_heads h on h.chain_id = ${chainId}`);
  const finalized = rows.find((r) => r.finalized_slot)?.finalized_slot;
  return {
    starts: new Map(rows.map((row) => [row.address, { cursor: row.last_signature ?? null, listing: listingOf(row) }])),
    finalizedSlot: finalized ? BigInt(finalized) : -1n,
  };
}

/** Notes where the address's listing stands (after its first page, and after each page recorded). */
export async function saveListing(db: Db, chainId: string, address: string, listing: UnfinishedListing): Promise<void> {
  await db.execute(sql`
    insert into solana_address_scans (chain_id, address, listing_until, listing_top_signature, listing_top_slot, listing_before_signature, listing_before_slot)
    values (${chainId}, ${address}, ${listing.until}, ${listing.top.signature}, ${listing.top.slot.toString()}::numeric,
            ${listing.before?.signature ?? null}, ${listing.before?.slot.toString() ?? null}::numeric)
    on conflict (chain_id, address) do update set
      listing_until = excluded.listing_until, listing_top_signature = excluded.listing_top_signature, listing_top_slot = excluded.listing_top_slot,
      listing_before_signature = excluded.listing_before_signature, listing_before_slot = excluded.listing_before_slot, updated_at = now()`);
}

/**
 * A listing read down to its `until`: the address's cursor moves to its top and the listing
 * is cleared, in one transaction (a crash between them would list it all again, harmlessly).
 */
export async function finishListing(db: Db, chainId: string, address: string, top: SignatureAt): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`
      insert into solana_account_cursors (chain_id, address, last_signature, last_slot)
      values (${chainId}, ${address}, ${top.signature}, ${top.slot.toString()}::numeric)
      on conflict (chain_id, address) do update set last_signature = excluded.last_signature, last_slot = excluded.last_slot, updated_at = now()
      where solana_account_cursors.last_slot <= excluded.last_slot`);
    await tx.execute(sql`
      update solana_address_scans set listing_until = null, listing_top_signature = null, listing_top_slot = null,
        listing_before_signature = null, listing_before_slot = null, updated_at = now()
      where chain_id = ${chainId} and address = ${address}`);
  });
}

/**
 * After a poll: the addresses whose scans read everything are vouched for through `through`
 * (never moved back); the others keep their horizon, and a row, so health can count the
 * open payments they hold back.
 */
export async function recordAddressEvidence(
  db: Db,
  chainId: string,
  scans: ReadonlyArray<{ address: string; paymentId: string; complete: boolean }>,
  through: Date,
): Promise<void> {
  if (scans.length === 0) return;
  await db.execute(sql`
    insert into solana_address_scans (chain_id, address, payment_id, evidence_through)
    select ${chainId}, s.address, s.payment_id, case when s.complete then ${through.toISOString()}::timestamptz end
    from unnest(${sql.param(scans.map((s) => s.address))}::text[], ${sql.param(scans.map((s) => s.paymentId))}::uuid[], ${sql.param(scans.map((s) => s.complete))}::boolean[])
      as s(address, payment_id, complete)
    on conflict (chain_id, address) do update set
      payment_id = excluded.payment_id,
      evidence_through = greatest(solana_address_scans.evidence_through, excluded.evidence_through),
      updated_at = now()`);
}

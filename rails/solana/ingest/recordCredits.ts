import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../../db/client.ts";

/** A credit found on chain, ready to be stored (amount in smallest units). */
export type FoundCredit = {
  signature: string;
  account: string;
  paymentId: string;
  source: "transfer" | "settlement";
  owner: string;
  /** Who paid (the token's source owner, `TokenCredit.payer`); absent or null: not known. */
  payer?: string | null;
  mint: string;
  tokenProgram: string;
  amount: bigint;
  slot: bigint;
  blockTime: Date;
  accountIndex: number;
  /** The node already reports the transaction at `finalized`. */
  finalized: boolean;
};

export type FoundBy = "poll" | "websocket" | "webhook" | "lookup" | "submission" | "replay";

/** Serializes, per chain, storing credits and moving the finalized watermark (they must see each other). */
export const lockChainIngest = (tx: Db, chainId: string) => tx.execute(sql`select pg_advisory_xact_lock(726200, hashtext(${chainId}))`);

/** Signatures listed for a scanned address, oldest first: its cursor moves to the newest one stored. */
export type ScannedAddress = { address: string; signatures: ReadonlyArray<{ signature: string; slot: bigint }> };

/** Credits found one way, and the address whose listing found them (its cursor moves). */
export type CreditEntry = {
  foundBy: FoundBy;
  credits: readonly FoundCredit[];
  scanned?: ScannedAddress;
  /**
   * The payment these credits' transactions may pay alone (a transfer nothing in it ties
   * to a payment): when any credit of one of them is already another payment's, none of
   * that transaction's is stored. Checked under the chain's lock, so two payments racing
   * for one transaction cannot each take part of it.
   */
  exclusiveTo?: string;
};

/**
 * Stores credits (unique on chain, signature and token account: a transaction seen
 * twice, by the websocket and the poller, is one credit; one removed as dropped by a fork
 * and found on chain again is restored, at the slot it was found in) and moves the scanned
 * address's cursor, in one transaction; announces the commit on `channel` when a credit
 * is new. A credit not yet seen at `finalized` whose slot is at or below the chain's
 * finalized watermark is refused, with everything after it: the watermark promises that
 * every credit below it was checked, so that transaction waits for the next scan (the
 * cursor stays before it).
 */
export async function recordCredits(db: Db, input: CreditEntry & { chainId: string; channel: string }): Promise<{ inserted: number; refused: string | null }> {
  const [result] = await recordCreditEntries(db, { chainId: input.chainId, channel: input.channel, entries: [input] });
  return result!;
}

/**
 * `recordCredits` for many entries (many scanned addresses) in one transaction, one insert
 * and one cursor upsert: each entry is refused, stored and counted as it would be alone.
 * A rise of a token account that two entries carry is stored for the first.
 */
export async function recordCreditEntries(
  db: Db,
  input: { chainId: string; channel: string; entries: readonly CreditEntry[] },
): Promise<Array<{ inserted: number; refused: string | null }>> {
  if (input.entries.every((e) => e.credits.length === 0 && !e.scanned?.signatures.length)) return input.entries.map(() => ({ inserted: 0, refused: null }));
  return db.transaction(async (txRaw) => {
    const tx = txRaw as unknown as Db;
    const { chainId } = input;
    await lockChainIngest(tx, chainId);
    const [head] = await queryRows<{ finalized_slot: string }>(tx, sql`select finalized_slot::text from solana_ingest_heads where chain_id = ${chainId}`);
    const watermark = head ? BigInt(head.finalized_slot) : -1n;
    const waits = (c: FoundCredit) => !c.finalized && c.slot <= watermark;
    const refusals: Array<string | null> = [];
    const cursors = new Map<string, { signature: string; slot: bigint }>();
    // One rise of a token account is one credit: a transaction carrying two payments'
    // references, read for both (a replay reads every payment), pays the first found — and
    // a batch naming a row twice would fail the whole insert (ON CONFLICT cannot touch it twice).
    const owner = new Map<string, number>();
    const accepted: Array<FoundCredit & { foundBy: FoundBy }> = [];
    for (const [index, entry] of input.entries.entries()) {
      let credits = entry.credits;
      if (entry.exclusiveTo !== undefined && credits.length > 0) {
        const taken = await queryRows<{ signature: string }>(tx, sql`
          select distinct signature from solana_credits
          where chain_id = ${chainId} and signature = any(${sql.param([...new Set(credits.map((c) => c.signature))])}::text[])
            and payment_id <> ${entry.exclusiveTo}::uuid`);
        const others = new Set(taken.map((r) => r.signature));
        credits = credits.filter((c) => !others.has(c.signature));
      }
      const refused = credits.find(waits) ?? null;
      refusals.push(refused?.signature ?? null);
      let signatures = entry.scanned?.signatures ?? [];
      if (refused) {
        const at = signatures.findIndex((s) => s.signature === refused.signature);
        signatures = at >= 0 ? signatures.slice(0, at) : signatures;
      }
      const stored = new Set(signatures.map((s) => s.signature));
      // A scan stores the prefix before the first credit that waits; a lookup stores every credit that need not wait.
      const candidates = !refused ? credits : entry.scanned ? credits.filter((c) => stored.has(c.signature)) : credits.filter((c) => !waits(c));
      for (const credit of candidates) {
        const key = `${credit.signature}:${credit.account}`;
        if (owner.has(key)) continue;
        owner.set(key, index);
        accepted.push({ ...credit, foundBy: entry.foundBy });
      }
      const newest = signatures.at(-1);
      if (entry.scanned && newest) cursors.set(entry.scanned.address, newest);
    }
    const inserted = input.entries.map(() => 0);
    // Each row's foreign key share-locks its payment: in id order, as reconciliation locks payments
    // (`lockPayments`), or a batch of many payments and a reconcile of several deadlock.
    accepted.sort((a, b) => (a.paymentId < b.paymentId ? -1 : a.paymentId > b.paymentId ? 1 : 0));
    if (accepted.length > 0) {
      const rows = await queryRows<{ signature: string; account: string }>(tx, sql`
        insert into solana_credits (chain_id, signature, account, payment_id, source, owner, mint, token_program, amount, slot, block_time, account_index, finalized, payer, found_by)
        select ${chainId}, c.* from unnest(
          ${sql.param(accepted.map((c) => c.signature))}::text[], ${sql.param(accepted.map((c) => c.account))}::text[],
          ${sql.param(accepted.map((c) => c.paymentId))}::uuid[], ${sql.param(accepted.map((c) => c.source))}::text[],
          ${sql.param(accepted.map((c) => c.owner))}::text[], ${sql.param(accepted.map((c) => c.mint))}::text[],
          ${sql.param(accepted.map((c) => c.tokenProgram))}::text[], ${sql.param(accepted.map((c) => c.amount.toString()))}::numeric[],
          ${sql.param(accepted.map((c) => c.slot.toString()))}::numeric[], ${sql.param(accepted.map((c) => c.blockTime.toISOString()))}::timestamptz[],
          ${sql.param(accepted.map((c) => c.accountIndex))}::int[], ${sql.param(accepted.map((c) => c.finalized))}::boolean[],
          ${sql.param(accepted.map((c) => c.payer ?? null))}::text[], ${sql.param(accepted.map((c) => c.foundBy))}::text[]
        ) as c
        on conflict (chain_id, signature, account) do update set
          removed_at = null, slot = excluded.slot, block_time = excluded.block_time, finalized = excluded.finalized,
          amount = excluded.amount, account_index = excluded.account_index, payer = excluded.payer,
          found_by = excluded.found_by, seq = nextval(pg_get_serial_sequence('solana_credits', 'seq'))
        where solana_credits.removed_at is not null
        returning signature, account`);
      for (const row of rows) inserted[owner.get(`${row.signature}:${row.account}`)!]!++;
    }
    if (cursors.size > 0) {
      const moved = [...cursors];
      await tx.execute(sql`
        insert into solana_account_cursors (chain_id, address, last_signature, last_slot)
        select ${chainId}, m.* from unnest(
          ${sql.param(moved.map(([address]) => address))}::text[], ${sql.param(moved.map(([, at]) => at.signature))}::text[],
          ${sql.param(moved.map(([, at]) => at.slot.toString()))}::numeric[]) as m(address, last_signature, last_slot)
        on conflict (chain_id, address) do update set last_signature = excluded.last_signature, last_slot = excluded.last_slot, updated_at = now()
        where solana_account_cursors.last_slot <= excluded.last_slot`);
    }
    if (inserted.some((n) => n > 0)) await tx.execute(sql`select pg_notify(${input.channel}, ${chainId})`);
    return inserted.map((n, i) => ({ inserted: n, refused: refusals[i]! }));
  });
}

/** The cursor of a scanned address: the newest signature already looked at (null: none yet). */
export async function addressCursor(db: Db, chainId: string, address: string): Promise<string | null> {
  const [row] = await queryRows<{ last_signature: string }>(db, sql`select last_signature from solana_account_cursors where chain_id = ${chainId} and address = ${address}`);
  return row?.last_signature ?? null;
}

import { and, asc, eq, isNull, ne, sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db/client.ts";
import { solanaDepositAddresses } from "./tables.ts";

/** The pool itself or a transaction on it. */
type Queryable = Pick<Db, "execute" | "select" | "insert" | "delete">;

export type SolanaDepositAddressRow = typeof solanaDepositAddresses.$inferSelect;

/**
 * Hands the lowest free address to `paymentId`, in one statement: concurrent creates skip the
 * rows others are claiming (never wait on them, never get the same one). Null: none is free.
 */
export async function claimSolanaDepositAddress(db: Db, paymentId: string): Promise<string | null> {
  const [row] = await queryRows<{ address: string }>(
    db,
    sql`update solana_deposit_addresses set payment_id = ${paymentId}, claimed_at = now()
        where (seed_id, index) = (
          select seed_id, index from solana_deposit_addresses where payment_id is null order by index limit 1 for update skip locked
        )
        returning address`,
  );
  return row?.address ?? null;
}

/** The pool's row of an address (its seed and index), if the pool handed it out or holds it. */
export async function findSolanaDepositAddress(db: Queryable, address: string): Promise<SolanaDepositAddressRow | undefined> {
  const [row] = await db.select().from(solanaDepositAddresses).where(eq(solanaDepositAddresses.address, address));
  return row;
}

/** The rows of one seed from index `from` (inclusive) to `to` (exclusive), by index. */
export async function solanaDepositAddressesBetween(db: Queryable, seedId: string, from: number, to: number): Promise<SolanaDepositAddressRow[]> {
  return db
    .select()
    .from(solanaDepositAddresses)
    .where(and(eq(solanaDepositAddresses.seedId, seedId), sql`${solanaDepositAddresses.index} >= ${from}`, sql`${solanaDepositAddresses.index} < ${to}`))
    .orderBy(asc(solanaDepositAddresses.index));
}

/**
 * Runs `work` in a transaction holding the pool's refill lock, or returns null at once when
 * another process holds it (a refill is under way there: waiting would only refill twice).
 */
export async function withSolanaDepositPoolLock<T>(db: Db, work: (tx: Queryable) => Promise<T>): Promise<T | null> {
  return db.transaction(async (tx) => {
    const [lock] = await queryRows<{ locked: boolean }>(tx as unknown as Db, sql`select pg_try_advisory_xact_lock(hashtextextended('solana deposit address pool', 0)) as locked`);
    return lock?.locked ? work(tx) : null;
  });
}

/** How many of a seed's addresses are free, and the index its next one takes. */
export async function solanaDepositPoolState(db: Queryable, seedId: string): Promise<{ free: number; nextIndex: number }> {
  const [row] = await queryRows<{ free: number; next: number }>(
    db as Db,
    sql`select (count(*) filter (where payment_id is null))::int as free, coalesce(max(index) + 1, 0)::int as next
        from solana_deposit_addresses where seed_id = ${seedId}`,
  );
  return { free: row?.free ?? 0, nextIndex: row?.next ?? 0 };
}

/** Removes the free addresses of every seed but `seedId` (never handed out: nothing was paid there). How many went. */
export async function dropFreeSolanaDepositAddressesOfOtherSeeds(db: Queryable, seedId: string): Promise<number> {
  const removed = await db
    .delete(solanaDepositAddresses)
    .where(and(isNull(solanaDepositAddresses.paymentId), ne(solanaDepositAddresses.seedId, seedId)))
    .returning({ address: solanaDepositAddresses.address });
  return removed.length;
}

/** Adds derived addresses to the pool (free). */
export async function insertSolanaDepositAddresses(db: Queryable, rows: ReadonlyArray<{ seedId: string; index: number; address: string }>): Promise<void> {
  for (let i = 0; i < rows.length; i += 1_000) await db.insert(solanaDepositAddresses).values(rows.slice(i, i + 1_000));
}

/** What recovery knows from the database of one seed's handed-out addresses: index → its payment and that payment's merchant wallet (null: its create never finished). */
export async function claimedSolanaDepositAddresses(db: Db, seedId: string): Promise<Map<number, { paymentId: string; merchantWallet: string | null }>> {
  const rows = await queryRows<{ index: number; payment_id: string; merchant_wallet: string | null }>(
    db,
    sql`select a.index, a.payment_id, p.merchant_wallet from solana_deposit_addresses a left join payments p on p.id = a.payment_id
        where a.seed_id = ${seedId} and a.payment_id is not null`,
  );
  return new Map(rows.map((r) => [r.index, { paymentId: r.payment_id, merchantWallet: r.merchant_wallet }]));
}

/** Deposit payments on `chainId` whose address the pool never held (created before it: their keys derive from the legacy seed). */
export async function depositPaymentsOutsidePool(db: Db, chainId: string): Promise<Array<{ id: string; receiveAddress: string; merchantWallet: string }>> {
  const rows = await queryRows<{ id: string; receive_address: string; merchant_wallet: string }>(
    db,
    sql`select p.id, p.receive_address, p.merchant_wallet from payments p
        where p.chain_id = ${chainId} and p.kind = 'deposit' and p.receive_address is not null
          and not exists (select 1 from solana_deposit_addresses a where a.address = p.receive_address)
        order by p.created_at`,
  );
  return rows.map((r) => ({ id: r.id, receiveAddress: r.receive_address, merchantWallet: r.merchant_wallet }));
}

import { sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";
import { tableExists } from "./indexerProgress.ts";

/**
 * Payments touched by indexed rows above `fromBlock` on a chain: transfers to their
 * deposit address, and settlement events of their intent.
 */
export async function paymentsWithNewEvidence(db: Db, indexerSchema: string, chainId: string, fromBlock: bigint): Promise<string[]> {
  const schema = sql.identifier(indexerSchema);
  const ids: string[] = [];
  if (await tableExists(db, indexerSchema, "token_transfer")) {
    const rows = await queryRows<{ id: string }>(db, sql`
      select distinct p.id from ${schema}."token_transfer" t
      join payments p on p.chain_id = ${chainId} and lower(p.receive_address) = t."to"
      where t.chain_id = ${Number(chainId)} and t.block_number > ${fromBlock.toString()}::numeric`);
    ids.push(...rows.map((r) => r.id));
  }
  if (await tableExists(db, indexerSchema, "settlement_payment")) {
    // bytes32 ids are a uuid's 16 bytes left-padded with zeros: the last 32 hex digits are the uuid.
    const rows = await queryRows<{ id: string }>(db, sql`
      select distinct p.id from ${schema}."settlement_payment" s
      join payments p on p.id = substring(s.payment_id from 35 for 32)::uuid
      where s.chain_id = ${Number(chainId)} and s.block_number > ${fromBlock.toString()}::numeric
        and substring(s.payment_id from 3 for 32) = repeat('0', 32)`);
    ids.push(...rows.map((r) => r.id));
  }
  return ids;
}

/** Payments whose answer changes with the head alone: confirmations still growing. */
export async function confirmingPayments(db: Db, chainId: string): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(db, sql`select id from payments where chain_id = ${chainId} and status = 'confirming'`);
  return rows.map((r) => r.id);
}

/**
 * The periodic safety net: every open payment, pending ones past their expiry, and
 * completed ones still inside their network's finality window (a deep reorg can
 * still undo those; a sandbox simulation is final and needs no recheck).
 */
export async function paymentsToRecheck(db: Db, finality: Array<{ chainId: string; blocks: number }>): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(db, sql`
    select id from payments where status in ('pending', 'confirming') and (amount_received > 0 or expires_at < now() or status = 'confirming')
    union
    select p.id from payments p
    join unnest(${sql.param(finality.map((f) => f.chainId))}::text[], ${sql.param(finality.map((f) => f.blocks))}::int[]) as f(chain_id, blocks)
      on f.chain_id = p.chain_id
    where p.status = 'completed' and p.confirmations < f.blocks * 2 and p.completed_via is distinct from 'simulation'`);
  return rows.map((r) => r.id);
}

export type Cursor = { block: bigint; windowDigest: string | null };

export async function readCursor(db: Db, chainId: string): Promise<Cursor | null> {
  const [row] = await queryRows<{ block_number: string; window_digest: string | null }>(
    db,
    sql`select block_number::text, window_digest from dispatch_cursors where chain_id = ${chainId}`,
  );
  return row ? { block: BigInt(row.block_number), windowDigest: row.window_digest } : null;
}

/** Moves a chain's cursor forward (never back: concurrent dispatchers can only agree). */
export async function advanceCursor(db: Db, chainId: string, block: bigint, windowDigest: string): Promise<void> {
  await db.execute(sql`
    insert into dispatch_cursors (chain_id, block_number, window_digest) values (${chainId}, ${block.toString()}::numeric, ${windowDigest})
    on conflict (chain_id) do update set
      window_digest = case when excluded.block_number >= dispatch_cursors.block_number then excluded.window_digest else dispatch_cursors.window_digest end,
      block_number = greatest(dispatch_cursors.block_number, excluded.block_number), updated_at = now()`);
}

/**
 * A digest of the indexed rows (ids and block hashes) in blocks (from, to] of a chain.
 * Rows only ever appear above the cursor, unless a reorg rewrote blocks below it:
 * then this digest, taken when the cursor was set, no longer matches.
 */
export async function windowDigest(db: Db, indexerSchema: string, chainId: string, from: bigint, to: bigint): Promise<string> {
  const schema = sql.identifier(indexerSchema);
  const parts: string[] = [];
  for (const table of ["token_transfer", "settlement_payment"]) {
    if (!(await tableExists(db, indexerSchema, table))) {
      parts.push("-");
      continue;
    }
    const [row] = await queryRows<{ n: string; h: string }>(db, sql`
      select count(*)::text as n, coalesce(sum(hashtext(id || block_hash)::bigint), 0)::text as h
      from ${schema}.${sql.identifier(table)}
      where chain_id = ${Number(chainId)} and block_number > ${from.toString()}::numeric and block_number <= ${to.toString()}::numeric`);
    parts.push(`${row!.n}:${row!.h}`);
  }
  return parts.join("/");
}

/** Payments completed through their deposit address whose sweep has not been recorded as done. */
export async function paymentsToSweep(db: Db): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(db, sql`
    select p.id from payments p
    where p.status = 'completed' and p.completed_via = 'transfer'
      and p.amount > coalesce((select sum(t.amount) from transfers_out t
                               where t.payment_id = p.id and t.kind = 'sweep' and t.status in ('requested', 'broadcast', 'confirmed')), 0)`);
  return rows.map((r) => r.id);
}

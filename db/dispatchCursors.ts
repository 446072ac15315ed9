import { sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";

/** How far dispatch has looked at a chain's ingested evidence: the block (slot) and, where evidence arrives ahead of it, a digest of what was seen there. */
export type EvidenceCursor = { block: bigint; windowDigest: string | null };

/** How far dispatch has looked at a chain's ingested evidence (null: not yet). */
export async function readCursor(db: Db, chainId: string): Promise<EvidenceCursor | null> {
  const [row] = await queryRows<{ block_number: string; window_digest: string | null }>(
    db,
    sql`select block_number::text, window_digest from dispatch_cursors where chain_id = ${chainId}`,
  );
  return row ? { block: BigInt(row.block_number), windowDigest: row.window_digest } : null;
}

/** Moves a chain's cursor forward (never back: concurrent dispatchers can only agree). */
export async function advanceCursor(db: Db, chainId: string, { block, windowDigest }: EvidenceCursor): Promise<void> {
  await db.execute(sql`
    insert into dispatch_cursors (chain_id, block_number, window_digest) values (${chainId}, ${block.toString()}::numeric, ${windowDigest})
    on conflict (chain_id) do update set
      window_digest = case when excluded.block_number >= dispatch_cursors.block_number then excluded.window_digest else dispatch_cursors.window_digest end,
      block_number = greatest(dispatch_cursors.block_number, excluded.block_number), updated_at = now()`);
}

/** Every chain's dispatch cursor block (what dispatch has prompted for), by chain id. */
export async function dispatchCursorBlocks(db: Db): Promise<Map<string, bigint>> {
  const rows = await queryRows<{ chain_id: string; block_number: string }>(db, sql`select chain_id, block_number::text from dispatch_cursors`);
  return new Map(rows.map((r) => [r.chain_id, BigInt(r.block_number)]));
}

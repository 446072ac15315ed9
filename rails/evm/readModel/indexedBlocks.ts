import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../../db/client.ts";
import type { IndexedHeads } from "../../types.ts";
import { INDEXED_TABLES } from "./tables.ts";

/**
 * The last block the indexer has verified, per chain id, read from Ponder's own
 * `_ponder_checkpoint` table. A checkpoint is a fixed-width string: 10 digits of block
 * timestamp, 16 of chain id, then 16 of block number (ponder/src/utils/checkpoint.ts).
 *
 * Until Ponder calls itself ready (`_ponder_meta.is_ready`), only its `safe_checkpoint`
 * holds: a restarted indexer deletes every row above it and re-reads those blocks, but
 * leaves `latest_checkpoint` where the last run stopped until its first batch commits
 * (ponder/src/database/index.ts, crash recovery). Its chains are then `rereading`. So is a
 * chain whose rows the indexer removed (a reorg rolled back) while its checkpoint has not
 * moved past where it stood then (`indexed_removals`, noted by a trigger: `noteRemovals.ts`).
 * Each chain's Ponder is ready or not on its own (one Ponder per EVM chain). Empty until
 * the indexer has created its tables.
 */
export async function indexedBlocks(db: Db, schema: string): Promise<IndexedHeads> {
  const table = (name: string) => sql`${sql.identifier(schema)}.${sql.identifier(name)}`;
  const [present] = await queryRows<{ checkpoint: boolean; meta: boolean; per_chain: boolean }>(db, sql`
    select to_regclass(${`"${schema}"."${INDEXED_TABLES.checkpoint}"`}) is not null as checkpoint, to_regclass(${`"${schema}"."${INDEXED_TABLES.meta}"`}) is not null as meta,
      exists (select 1 from information_schema.columns where table_schema = ${schema} and table_name = ${INDEXED_TABLES.meta} and column_name = 'chain_id') as per_chain`);
  if (!present?.checkpoint) return Object.assign(new Map<string, bigint>(), { rereading: new Set<string>() });
  // One Ponder per chain: the views schema's metadata names each one's chain (indexedViews.ts).
  // Without its metadata (never so from Ponder itself), the latest checkpoint is taken as it stands.
  const chainFilter = present.per_chain ? sql` and m.chain_id = c.chain_id::text` : sql``;
  const ready = present.meta ? sql`(select m.value->>'is_ready' = '1' from ${table(INDEXED_TABLES.meta)} m where m.key = 'app'${chainFilter})` : sql`null::boolean`;
  const rows = await queryRows<{ chain_id: string; block_number: string; ready: boolean; removed: boolean }>(db, sql`
    select c.chain_id, c.ready,
      substring(case when c.ready then c.latest_checkpoint else c.safe_checkpoint end from 27 for 16) as block_number,
      -- By block number (after the timestamp): the new branch's blocks may carry older timestamps.
      coalesce(substring(r.checkpoint from 27 for 16) >= substring(c.latest_checkpoint from 27 for 16), false) as removed
    from (select c.chain_id::text as chain_id, c.latest_checkpoint, c.safe_checkpoint, coalesce(${ready}, true) as ready from ${table(INDEXED_TABLES.checkpoint)} c) c
    left join indexed_removals r on r.chain_id = c.chain_id`);
  const heads = new Map(rows.map((r) => [String(r.chain_id), BigInt(r.block_number)]));
  return Object.assign(heads, { rereading: new Set(rows.filter((r) => !r.ready || r.removed).map((r) => String(r.chain_id))) });
}

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
 * Empty until the indexer has created its tables.
 */
export async function indexedBlocks(db: Db, schema: string): Promise<IndexedHeads> {
  const table = (name: string) => sql`${sql.identifier(schema)}.${sql.identifier(name)}`;
  const [present] = await queryRows<{ checkpoint: boolean; meta: boolean }>(db, sql`
    select to_regclass(${`"${schema}"."${INDEXED_TABLES.checkpoint}"`}) is not null as checkpoint, to_regclass(${`"${schema}"."${INDEXED_TABLES.meta}"`}) is not null as meta`);
  if (!present?.checkpoint) return Object.assign(new Map<string, bigint>(), { rereading: new Set<string>() });
  // Without its metadata (never so from Ponder itself), the latest checkpoint is taken as it stands.
  const ready = present.meta ? sql`(select value->>'is_ready' = '1' from ${table(INDEXED_TABLES.meta)} where key = 'app')` : sql`null::boolean`;
  const rows = await queryRows<{ chain_id: string; block_number: string; ready: boolean; removed: boolean }>(db, sql`
    with meta as (select coalesce(${ready}, true) as ready)
    select c.chain_id::text as chain_id, meta.ready,
      substring(case when meta.ready then c.latest_checkpoint else c.safe_checkpoint end from 27 for 16) as block_number,
      -- By block number (after the timestamp): the new branch's blocks may carry older timestamps.
      coalesce(substring(r.checkpoint from 27 for 16) >= substring(c.latest_checkpoint from 27 for 16), false) as removed
    from ${table(INDEXED_TABLES.checkpoint)} c cross join meta
    left join indexed_removals r on r.chain_id = c.chain_id::text`);
  const heads = new Map(rows.map((r) => [String(r.chain_id), BigInt(r.block_number)]));
  return Object.assign(heads, { rereading: new Set(rows.filter((r) => !r.ready || r.removed).map((r) => String(r.chain_id))) });
}

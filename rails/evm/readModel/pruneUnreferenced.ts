import { sql } from "drizzle-orm";
import { queryRows } from "../../../db/client.ts";
import type { PruneResult, RailContext } from "../../types.ts";
import { indexedBlocks } from "./indexedBlocks.ts";
import { PRUNING_SETTING } from "./noteRemovals.ts";
import { INDEXED_TABLES, indexedTables } from "./tables.ts";

/** Rows this close to the indexed head are left alone: a reorg may still rewrite them (Ponder owns them until final). */
const KEEP_RECENT_BLOCKS = 1_000n;

/**
 * Removes indexed transfers that are no payment's evidence: rows whose recipient is no
 * payment's receive address on that chain (what an indexer that recorded every transfer
 * left behind, before ingest was limited to watched addresses). Every row that is, or
 * may become, some payment's evidence stays: payments' rows are the audit trail. Only
 * rows well below the indexed head are touched. `dryRun` counts without deleting.
 */
export async function pruneUnreferencedTransfers(ctx: RailContext, options: { dryRun: boolean }): Promise<PruneResult> {
  const schema = ctx.config.indexer.viewsSchema;
  if (!(await indexedTables(ctx.db, schema)).transfers) return { removed: 0, kept: 0 };
  const heads = await indexedBlocks(ctx.db, schema);
  const table = sql`${sql.identifier(schema)}.${sql.identifier(INDEXED_TABLES.transfers)}`;
  let removed = 0;
  for (const [chainId, head] of heads) {
    // Deleted from the chain's own Ponder's table: the views schema's union cannot be written through.
    const [source] = await queryRows<{ schema: string }>(ctx.db, sql`select schema from indexed_sources where chain_id = ${chainId}`);
    const from = source ? sql`${sql.identifier(source.schema)}.${sql.identifier(INDEXED_TABLES.transfers)}` : table;
    const below = head > KEEP_RECENT_BLOCKS ? head - KEEP_RECENT_BLOCKS : 0n;
    const unreferenced = sql`t.chain_id = ${Number(chainId)} and t.block_number < ${below.toString()}::numeric
      and not exists (select 1 from payments p where p.chain_id = t.chain_id::text and lower(p.receive_address) = t."to")`;
    const [row] = options.dryRun
      ? await queryRows<{ n: string }>(ctx.db, sql`select count(*)::text as n from ${table} t where ${unreferenced}`)
      : await ctx.db.transaction(async (tx) => {
          // Not a reorg's rollback: the removal trigger must not make the chain look re-read (reconcile would hold every answer).
          await tx.execute(sql`select set_config(${PRUNING_SETTING}, 'on', true)`);
          return queryRows<{ n: string }>(tx as never, sql`with gone as (delete from ${from} t where ${unreferenced} returning 1) select count(*)::text as n from gone`);
        });
    removed += Number(row!.n);
  }
  const [left] = await queryRows<{ n: string }>(ctx.db, sql`select count(*)::text as n from ${table}`);
  return { removed, kept: Number(left!.n) - (options.dryRun ? removed : 0) };
}

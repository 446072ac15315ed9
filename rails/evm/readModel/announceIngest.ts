import type pg from "pg";
import type { RailContext } from "../../types.ts";
import { noteIndexedRemovals } from "./noteRemovals.ts";
import { INDEXED_TABLES } from "./tables.ts";

/**
 * Makes Postgres announce every indexer commit on `channel`: Ponder updates
 * `_ponder_checkpoint` in the transaction that writes a block's rows, so the NOTIFY
 * arrives when they are visible. The trigger goes on each table behind the views
 * schema's `_ponder_checkpoint` (one Ponder per EVM chain, `indexedViews.ts`), so a
 * chain whose Ponder is added or replaced later is announced from the next call on.
 * Idempotent; false while no indexer has created its tables.
 */
export async function announceIndexerCommits(client: pg.Client, ctx: RailContext, channel: string): Promise<boolean> {
  const { rows } = await client.query<{ table_schema: string }>(
    `select distinct table_schema from information_schema.view_table_usage
     where view_schema = $1 and view_name = $2 and table_name = $2`,
    [ctx.config.indexer.viewsSchema, INDEXED_TABLES.checkpoint],
  );
  if (rows.length === 0) return false;
  await client.query(`
    create or replace function stablepay_notify_indexed() returns trigger language plpgsql as $$
    begin perform pg_notify('${channel}', new.chain_id::text); return new; end $$;`);
  for (const { table_schema: baseSchema } of rows) {
    const table = `"${baseSchema.replaceAll('"', '""')}"."${INDEXED_TABLES.checkpoint}"`;
    const { rows: existing } = await client.query("select 1 from pg_trigger where tgname = 'stablepay_notify_indexed' and tgrelid = to_regclass($1)", [table]);
    if (existing.length === 0) {
      await client.query(`create trigger stablepay_notify_indexed after insert or update on ${table} for each row execute function stablepay_notify_indexed()`);
    }
    await noteIndexedRemovals(client, baseSchema);
  }
  return true;
}

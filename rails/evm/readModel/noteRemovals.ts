import type pg from "pg";
import { INDEXED_TABLES } from "./tables.ts";

/** Set (transaction-local) by `indexer prune`: its deletes are not a reorg's rollback. */
export const PRUNING_SETTING = "stablepay.pruning";

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * Makes the indexer's evidence tables in `baseSchema` note each removal of rows in
 * `indexed_removals` (the service's table): Ponder rolls a reorg back by deleting the rows
 * above the common ancestor and leaves `latest_checkpoint` where it was until it has read
 * the new branch, so for a block or so the head says "read" over evidence that is gone and
 * may come back a moment later. The note holds the checkpoint at the removal; `indexedBlocks`
 * calls the chain re-read until the checkpoint has moved past it. A statement-level trigger:
 * one insert per deleting statement, nothing on the indexer's inserts. The function runs as
 * its owner (the service) so the indexer's role needs no rights on the service's table,
 * and swallows its own errors: the indexer's rollback must never fail over a note. Idempotent.
 */
export async function noteIndexedRemovals(client: pg.Client, baseSchema: string): Promise<void> {
  // Run on every tick of the dispatch's listener: DDL only when a trigger is missing.
  const tables = [INDEXED_TABLES.transfers, INDEXED_TABLES.settlements, INDEXED_TABLES.splits].map((name) => `${quote(baseSchema)}.${quote(name)}`);
  const { rows: missing } = await client.query<{ name: string }>(
    `select t.name from unnest($1::text[]) as t(name)
     where to_regclass(t.name) is not null
       and not exists (select 1 from pg_trigger where tgname = 'stablepay_note_removed' and tgrelid = to_regclass(t.name))`,
    [tables],
  );
  // A function from before the prune's mark (below) is replaced in place: its triggers keep it.
  const { rows: marked } = await client.query<{ current: boolean }>(
    `select exists (select 1 from pg_proc where proname = 'stablepay_note_removed' and prosrc like '%${PRUNING_SETTING}%') as current`,
  );
  if (missing.length === 0 && marked[0]!.current) return;
  const { rows } = await client.query<{ schema: string }>("select current_schema() as schema");
  const service = rows[0]!.schema;
  await client.query(`
    create or replace function stablepay_note_removed() returns trigger language plpgsql security definer as $$
    begin
      -- The operator's prune removes rows that are no payment's evidence: no reorg, nothing to re-read.
      if current_setting('${PRUNING_SETTING}', true) = 'on' then return null; end if;
      execute format(
        'insert into ${quote(service).replaceAll("'", "''")}.indexed_removals (chain_id, checkpoint)
           select distinct o.chain_id::text, c.latest_checkpoint from removed_rows o join %I.${INDEXED_TABLES.checkpoint} c on c.chain_id = o.chain_id
         on conflict (chain_id) do update set checkpoint = greatest(indexed_removals.checkpoint, excluded.checkpoint), noted_at = now()',
        TG_TABLE_SCHEMA);
      return null;
    exception when others then
      -- Never fail the indexer's own transaction over a note: the rollback goes on unnoted.
      raise warning 'stablepay_note_removed: %', sqlerrm;
      return null;
    end $$;`);
  for (const { name } of missing) {
    await client.query(`create trigger stablepay_note_removed after delete on ${name} referencing old table as removed_rows for each statement execute function stablepay_note_removed()`);
  }
}

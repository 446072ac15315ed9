import type pg from "pg";
import { chainSchema } from "../../../config/indexer.ts";
import { INDEXED_TABLES } from "./tables.ts";

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
/** The tables each chain's Ponder writes, as the views schema shows them (meta gains a chain id). */
const ROW_TABLES = [INDEXED_TABLES.transfers, INDEXED_TABLES.settlements, INDEXED_TABLES.splits, INDEXED_TABLES.checkpoint] as const;
/** The views' comment: the sources they were built from, to rebuild only on a change. */
const MARK = "stablepay indexed sources: ";


type Source = { chainId: string; schema: string };

/**
 * Keeps the views schema one face over every EVM chain's Ponder: for each table a
 * `UNION ALL` of each chain's rows from the schema `indexed_sources` names for it, filtered to
 * that chain (a schema of the single Ponder of old holds every chain). A chain's source moves to
 * its own Ponder's schema once that Ponder is ready (its backfill done), so a re-index from
 * START_BLOCK never hides evidence already read; a chain with no source yet takes its schema as
 * soon as Ponder has created its tables. The views are rebuilt, in one transaction, only when
 * the sources change. Returns the sources in use. Idempotent; run by the indexer role.
 */
export async function syncIndexedViews(client: pg.PoolClient | pg.Client, options: { schema: string; viewsSchema: string; chainIds: readonly string[] }): Promise<Source[]> {
  await client.query("begin");
  try {
    // One writer at a time (replicas of the indexer role, a test beside it): the lock ends with the transaction.
    await client.query("select pg_advisory_xact_lock(726002)");
    await adoptSingleIndexer(client, options.viewsSchema);
    for (const chainId of options.chainIds) {
      const target = chainSchema(options.schema, chainId);
      const { rows } = await client.query<{ created: boolean }>(
        "select to_regclass($1) is not null and to_regclass($2) is not null as created",
        [`${quote(target)}.${quote(INDEXED_TABLES.checkpoint)}`, `${quote(target)}.${quote(INDEXED_TABLES.splits)}`],
      );
      if (!rows[0]!.created) continue;
      const { rows: ready } = await client.query<{ ready: boolean }>(`select coalesce((select (value->>'is_ready') = '1' from ${quote(target)}.${quote(INDEXED_TABLES.meta)} where key = 'app'), false) as ready`);
      // A first source is taken at once; an existing one is replaced only by a Ponder that is ready.
      await client.query(
        `insert into indexed_sources (chain_id, schema) values ($1, $2)
         on conflict (chain_id) do update set schema = excluded.schema, since = now() where indexed_sources.schema <> excluded.schema and $3::boolean`,
        [chainId, target, ready[0]!.ready],
      );
    }
    const { rows: all } = await client.query<Source & { present: boolean }>(
      `select chain_id as "chainId", schema, to_regclass(quote_ident(schema) || '.' || quote_ident($1)) is not null as present from indexed_sources order by chain_id`,
      [INDEXED_TABLES.checkpoint],
    );
    // A source whose schema was dropped by hand is left out rather than failing every view.
    const sources = all.filter((s) => s.present).map(({ chainId, schema }) => ({ chainId, schema }));
    await buildViews(client, options.viewsSchema, sources);
    await client.query("commit");
    return sources;
  } catch (error) {
    await client.query("rollback").catch(() => {});
    throw error;
  }
}

/**
 * The single Ponder of before (`ponder --views-schema`) left plain views over its schema: each
 * chain it indexed keeps reading from there until its own Ponder is ready (no re-index gap).
 */
async function adoptSingleIndexer(client: pg.PoolClient | pg.Client, viewsSchema: string): Promise<void> {
  const { rows: known } = await client.query("select 1 from indexed_sources limit 1");
  if (known.length > 0) return;
  const { rows } = await client.query<{ schema: string }>(
    `select table_schema as schema from information_schema.view_table_usage
     where view_schema = $1 and view_name = $2 and table_name = $2`,
    [viewsSchema, INDEXED_TABLES.checkpoint],
  );
  if (rows.length !== 1) return;
  const base = rows[0]!.schema;
  await client.query(`insert into indexed_sources (chain_id, schema) select chain_id::text, $1 from ${quote(base)}.${quote(INDEXED_TABLES.checkpoint)} on conflict do nothing`, [base]);
}

async function buildViews(client: pg.PoolClient | pg.Client, viewsSchema: string, sources: Source[]): Promise<void> {
  const mark = MARK + sources.map((s) => `${s.chainId}=${s.schema}`).join(",");
  const vs = quote(viewsSchema);
  const { rows } = await client.query<{ mark: string | null }>(`select obj_description(to_regclass($1), 'pg_class') as mark`, [`${vs}.${quote(INDEXED_TABLES.checkpoint)}`]);
  if (rows[0]?.mark === mark || sources.length === 0) return;
  await client.query(`create schema if not exists ${vs}`);
  for (const table of [...ROW_TABLES, INDEXED_TABLES.meta]) await client.query(`drop view if exists ${vs}.${quote(table)}`);
  for (const table of ROW_TABLES) {
    // Named columns, the first source's: schemas written by different Ponder runs may order them differently.
    const { rows: columns } = await client.query<{ name: string }>(
      "select column_name as name from information_schema.columns where table_schema = $1 and table_name = $2 order by ordinal_position",
      [sources[0]!.schema, table],
    );
    const list = columns.map((c) => quote(c.name)).join(", ");
    const branches = sources.map((s) => `select ${list} from ${quote(s.schema)}.${quote(table)} where chain_id = ${Number(s.chainId)}`);
    await client.query(`create view ${vs}.${quote(table)} as ${branches.join(" union all ")}`);
  }
  // Each Ponder's metadata (its readiness above all), named by the chain it stands for.
  const metas = sources.map((s) => `select ${literal(s.chainId)}::text as chain_id, key, value from ${quote(s.schema)}.${quote(INDEXED_TABLES.meta)}`);
  await client.query(`create view ${vs}.${quote(INDEXED_TABLES.meta)} as ${metas.join(" union all ")}`);
  await client.query(`comment on view ${vs}.${quote(INDEXED_TABLES.checkpoint)} is ${literal(mark)}`);
}

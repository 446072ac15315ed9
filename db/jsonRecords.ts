import { getTableColumns, sql, type Column, type SQL } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import { queryRows, type Db } from "./client.ts";

/**
 * Many rows in one statement, sent as one JSON parameter that Postgres spreads back
 * into rows (`jsonb_populate_recordset`): the statement's text depends only on the
 * columns given, so it is built in microseconds and the server's plan is reused,
 * where drizzle's `values()` builds a parameter per column per row (on payment creation
 * that building cost more than the insert).
 */
export function recordSet<T extends PgTable>(table: T, rows: ReadonlyArray<T["$inferInsert"]>): { columns: SQL; records: SQL } {
  const byKey = getTableColumns(table);
  const keys = Object.keys(rows[0] ?? {}).filter((k) => rows[0]![k as keyof (typeof rows)[0]] !== undefined);
  const signature = keys.join();
  const records = rows.map((row) => {
    const given = Object.keys(row).filter((k) => row[k as keyof typeof row] !== undefined);
    // A column missing from one row would be null there, not its default: callers group rows by their columns.
    if (given.join() !== signature) throw new Error("recordSet: every row must give the same columns");
    const record: Record<string, unknown> = {};
    for (const key of keys) {
      const column = byKey[key];
      if (!column) throw new Error(`recordSet: no column ${key}`);
      const value = row[key as keyof typeof row] as unknown;
      // Amounts as decimal strings (numeric takes them exactly); jsonb columns as the JSON itself.
      record[column.name] = typeof value === "bigint" ? value.toString() : value instanceof Date ? value.toISOString() : value;
    }
    return record;
  });
  return {
    columns: sql.join(
      keys.map((k) => sql.identifier(byKey[k]!.name)),
      sql`, `,
    ),
    records: sql`jsonb_populate_recordset(null::${table}, ${JSON.stringify(records)}::text::jsonb)`,
  };
}

const columnLists = new WeakMap<PgTable, Array<{ key: string; name: string; column: Column }>>();
const columnsOf = (table: PgTable) => {
  let list = columnLists.get(table);
  if (!list) columnLists.set(table, (list = Object.entries(getTableColumns(table)).map(([key, column]) => ({ key, name: column.name, column }))));
  return list;
};

/** Every column of `table`, by name, for a raw select whose rows `rowFromDriver` reads. */
export const allColumns = (table: PgTable): SQL =>
  sql.join(
    columnsOf(table).map((c) => sql.identifier(c.name)),
    sql`, `,
  );

/**
 * A row as the driver returned it from raw SQL (`returning *`, `allColumns`), decoded by
 * the columns' own decoders as drizzle's `select()` would, without its generic per-value
 * bookkeeping (on batches of hundreds of rows that costs more than the query).
 */
export function rowFromDriver<T extends PgTable>(table: T, raw: Record<string, unknown>): T["$inferSelect"] {
  const row: Record<string, unknown> = {};
  for (const { key, name, column } of columnsOf(table)) {
    const value = raw[name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as T["$inferSelect"];
}

/** Groups rows by the columns they give (`recordSet` takes one group at a time), keeping their order within each group. */
export function byColumnsGiven<R extends object>(rows: readonly R[]): R[][] {
  const groups = new Map<string, R[]>();
  for (const row of rows) {
    const signature = Object.keys(row)
      .filter((k) => row[k as keyof R] !== undefined)
      .join();
    const group = groups.get(signature);
    if (group) group.push(row);
    else groups.set(signature, [row]);
  }
  return [...groups.values()];
}

/**
 * Inserts rows through `recordSet` (one statement per set of columns given), jsonb as
 * objects: drizzle's jsonb on Bun's driver stores a JSON string of the value instead.
 * Returns the inserted rows, typed, in no particular order.
 */
export async function insertRecords<T extends PgTable>(db: Db, table: T, rows: ReadonlyArray<T["$inferInsert"]>): Promise<Array<T["$inferSelect"]>> {
  const inserted: Array<T["$inferSelect"]> = [];
  for (const group of byColumnsGiven(rows)) {
    const { columns, records } = recordSet(table, group);
    const raw = await queryRows<Record<string, unknown>>(db, sql`insert into ${table} (${columns}) select ${columns} from ${records} returning *`);
    for (const r of raw) inserted.push(rowFromDriver(table, r));
  }
  return inserted;
}

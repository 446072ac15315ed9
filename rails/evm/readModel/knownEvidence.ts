import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../../db/client.ts";
import { INDEXED_TABLES, type IndexedTables } from "./tables.ts";

/** Which of these evidence ids (`<chainId>:<txHash>:<logIndex>`) the service holds already: indexed, or replayed before. */
export async function knownEvidenceIds(db: Db, schema: string, tables: IndexedTables, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const s = sql.identifier(schema);
  const among = sql`id = any(${sql.param(ids)}::text[])`;
  const sources = [
    sql`select id from replayed_token_transfer where ${among}`,
    sql`select id from replayed_settlement_payment where ${among}`,
    sql`select id from replayed_split_payment where ${among}`,
    ...(tables.transfers ? [sql`select id from ${s}.${sql.identifier(INDEXED_TABLES.transfers)} where ${among}`] : []),
    ...(tables.settlements ? [sql`select id from ${s}.${sql.identifier(INDEXED_TABLES.settlements)} where ${among}`] : []),
    ...(tables.splits ? [sql`select id from ${s}.${sql.identifier(INDEXED_TABLES.splits)} where ${among}`] : []),
  ];
  return new Set((await queryRows<{ id: string }>(db, sql.join(sources, sql` union `))).map((r) => r.id));
}

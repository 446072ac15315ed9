import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../../db/client.ts";

/**
 * The indexer's read model: the tables Ponder writes (`indexer/ponder.schema.ts`),
 * read through its views schema so names stay stable across redeployments. Every SQL
 * that reads them lives in this folder.
 */
export const INDEXED_TABLES = {
  transfers: "token_transfer",
  settlements: "settlement_payment",
  splits: "split_payment",
  checkpoint: "_ponder_checkpoint",
  meta: "_ponder_meta",
} as const;

/** `splits` (the client SDK's split payments) came later: absent reads as not created yet. */
export type IndexedTables = { transfers: boolean; settlements: boolean; splits?: boolean };

/** Which evidence tables the indexer has created yet (it creates them at its first start). One query. */
export async function indexedTables(db: Db, schema: string): Promise<IndexedTables> {
  const name = (table: string) => `"${schema}"."${table}"`;
  const [row] = await queryRows<{ transfers: boolean; settlements: boolean; splits: boolean }>(db, sql`
    select to_regclass(${name(INDEXED_TABLES.transfers)}) is not null as transfers,
           to_regclass(${name(INDEXED_TABLES.settlements)}) is not null as settlements,
           to_regclass(${name(INDEXED_TABLES.splits)}) is not null as splits`);
  return { transfers: row?.transfers === true, settlements: row?.settlements === true, splits: row?.splits === true };
}

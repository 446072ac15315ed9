import { sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";

/**
 * The last block the indexer has committed, per chain id, read from Ponder's own
 * `_ponder_checkpoint` table. A checkpoint is a fixed-width string: 10 digits of block
 * timestamp, 16 of chain id, then 16 of block number (ponder/src/utils/checkpoint.ts).
 * Empty until the indexer has created its tables.
 */
export async function indexedBlocks(db: Db, indexerSchema: string): Promise<Map<string, bigint>> {
  if (!(await tableExists(db, indexerSchema, "_ponder_checkpoint"))) return new Map();
  const rows = await queryRows<{ chain_id: string; block_number: string }>(db, sql`
    select chain_id::text as chain_id, substring(latest_checkpoint from 27 for 16) as block_number
    from ${sql.identifier(indexerSchema)}."_ponder_checkpoint"`);
  return new Map(rows.map((r) => [String(r.chain_id), BigInt(r.block_number)]));
}

/** Whether the indexer has created a table yet (it creates them at its first start). */
export async function tableExists(db: Db, schema: string, table: string): Promise<boolean> {
  const [row] = await queryRows<{ present: boolean }>(db, sql`select to_regclass(${`"${schema}"."${table}"`}) is not null as present`);
  return row?.present === true;
}

import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../../db/client.ts";
import { INDEXED_TABLES } from "./tables.ts";

/**
 * The last block the indexer has committed, per chain id, read from Ponder's own
 * `_ponder_checkpoint` table. A checkpoint is a fixed-width string: 10 digits of block
 * timestamp, 16 of chain id, then 16 of block number (ponder/src/utils/checkpoint.ts).
 * Empty until the indexer has created its tables.
 */
export async function indexedBlocks(db: Db, schema: string): Promise<Map<string, bigint>> {
  const [present] = await queryRows<{ present: boolean }>(db, sql`select to_regclass(${`"${schema}"."${INDEXED_TABLES.checkpoint}"`}) is not null as present`);
  if (!present?.present) return new Map();
  const rows = await queryRows<{ chain_id: string; block_number: string }>(db, sql`
    select chain_id::text as chain_id, substring(latest_checkpoint from 27 for 16) as block_number
    from ${sql.identifier(schema)}.${sql.identifier(INDEXED_TABLES.checkpoint)}`);
  return new Map(rows.map((r) => [String(r.chain_id), BigInt(r.block_number)]));
}

import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../../db/client.ts";
import { caughtUpTimes } from "../../../db/ingestWatch.ts";
import { INDEXED_TABLES } from "./tables.ts";
import { BLOCK_ARRIVAL_MARGIN_MS } from "../../blockArrival.ts";

/**
 * Per indexed chain, the time up to which the indexer holds every block: its checkpoint's
 * block timestamp (the first 10 digits of Ponder's checkpoint), or — when the worker's
 * watch last found the indexer at the chain's head — the moment of that check less
 * BLOCK_ARRIVAL_MARGIN_MS, whichever is later. The second matters on a quiet chain, whose
 * newest block may be old.
 */
export async function evidenceHorizons(db: Db, schema: string): Promise<Map<string, Date>> {
  const [present] = await queryRows<{ present: boolean }>(db, sql`select to_regclass(${`"${schema}"."${INDEXED_TABLES.checkpoint}"`}) is not null as present`);
  if (!present?.present) return new Map();
  const [rows, caughtUp] = await Promise.all([
    queryRows<{ chain_id: string; seconds: string }>(db, sql`
      select chain_id::text as chain_id, substring(latest_checkpoint from 1 for 10) as seconds
      from ${sql.identifier(schema)}.${sql.identifier(INDEXED_TABLES.checkpoint)}`),
    caughtUpTimes(db),
  ]);
  return new Map(
    rows.map((r) => {
      const indexed = new Date(Number(r.seconds) * 1000);
      const seen = caughtUp.get(r.chain_id);
      const atHead = seen ? new Date(seen.getTime() - BLOCK_ARRIVAL_MARGIN_MS) : null;
      return [r.chain_id, atHead && atHead > indexed ? atHead : indexed];
    }),
  );
}

import { sql } from "drizzle-orm";
import { MAX_LATE_SCAN_BLOCKS } from "../../../config/env.ts";
import type { Network } from "../../../config/index.ts";
import { queryRows, type Db } from "../../../db/client.ts";
import { paymentsWithEvidenceAbove } from "../../../db/paymentsToRevisit.ts";
import type { EvidenceCursor, NewEvidence, RailContext } from "../../types.ts";
import { evidenceQuery } from "./evidence.ts";
import { INDEXED_TABLES, indexedTables, type IndexedTables } from "./tables.ts";

/**
 * How many blocks below the cursor are watched for rows that appear there: a reorg's
 * rewrites, and the late-money scan's finds, which land up to `INDEXER_LATE_SCAN_BLOCKS`
 * blocks below the indexed head (capped below this window).
 */
const REORG_WINDOW = BigInt(MAX_LATE_SCAN_BLOCKS) + 1n;

/**
 * Payments with indexed evidence above the cursor on a chain. Normally only rows above
 * the cursor are new; if the rows just below it changed since the cursor was set (a
 * reorg rewrote those blocks), they are looked at again. Evidence still inside the
 * confirmation window is looked at again on every block: its payment's answer changes
 * with the head alone, and its `confirming` status may not be committed yet.
 */
export async function newIndexedEvidence(ctx: RailContext, network: Network, cursor: EvidenceCursor | null, head: bigint): Promise<NewEvidence> {
  const { db } = ctx;
  const schema = ctx.config.indexer.viewsSchema;
  const tables = await indexedTables(db, schema);
  let from = cursor?.block ?? -1n;
  if (cursor) {
    const below = cursor.block > REORG_WINDOW ? cursor.block - REORG_WINDOW : -1n;
    if ((await windowDigest(db, schema, tables, network.chainId, below, cursor.block)) !== cursor.windowDigest) from = below;
  }
  const unconfirmedFloor = head - BigInt(Math.max(1, network.requiredConfirmations));
  if (unconfirmedFloor < from) from = unconfirmedFloor;
  // Rows a reorg removed can only be missed by looking at what is there: the payments with
  // a credit above `from` (completing, late, extra) are looked at again too — also once
  // ingest re-reads those blocks after rolling back (a restart, a reorg), when a vanished
  // transfer first shows as vanished (reconcile holds the answer until then).
  const undone = await paymentsWithEvidenceAbove(db, network.chainId, from);

  const query = evidenceQuery(schema, tables, { chainId: network.chainId, aboveBlock: from });
  const rows = await queryRows<{ payment_id: string }>(db, sql`select distinct payment_id from (${query}) evidence`);
  const windowStart = head > REORG_WINDOW ? head - REORG_WINDOW : -1n;
  return {
    paymentIds: [...rows.map((r) => r.payment_id), ...undone],
    cursor: { block: head, windowDigest: await windowDigest(db, schema, tables, network.chainId, windowStart, head) },
  };
}

/**
 * A digest of the indexed rows (ids and block hashes) in blocks (from, to] of a chain.
 * Rows only ever appear above the cursor, unless a reorg rewrote blocks below it:
 * then this digest, taken when the cursor was set, no longer matches.
 */
async function windowDigest(db: Db, schema: string, tables: IndexedTables, chainId: string, from: bigint, to: bigint): Promise<string> {
  const parts: string[] = [];
  const watched = [
    [INDEXED_TABLES.transfers, tables.transfers],
    [INDEXED_TABLES.settlements, tables.settlements],
    [INDEXED_TABLES.splits, tables.splits === true],
  ] as const;
  for (const [table, present] of watched) {
    if (!present) {
      parts.push("-");
      continue;
    }
    const [row] = await queryRows<{ n: string; h: string }>(db, sql`
      select count(*)::text as n, coalesce(sum(hashtext(id || block_hash)::bigint), 0)::text as h
      from ${sql.identifier(schema)}.${sql.identifier(table)}
      where chain_id = ${Number(chainId)} and block_number > ${from.toString()}::numeric and block_number <= ${to.toString()}::numeric`);
    parts.push(`${row!.n}:${row!.h}`);
  }
  return parts.join("/");
}

import { sql } from "drizzle-orm";
import type { Db } from "../../../db/client.ts";

/**
 * Drops what the subscriber noted of these chains: its heads (confirmed and finalized slot,
 * evidence horizon), each watched address's newest signature, unfinished listing and horizon. It starts on them again as
 * on a chain it never saw. Credits stay: they are evidence, not notes.
 */
export async function forgetSolanaChains(db: Db, chainIds: readonly string[]): Promise<void> {
  if (chainIds.length === 0) return;
  const ids = sql.param([...chainIds]);
  await db.execute(sql`delete from solana_ingest_heads where chain_id = any(${ids}::text[])`);
  await db.execute(sql`delete from solana_account_cursors where chain_id = any(${ids}::text[])`);
  await db.execute(sql`delete from solana_address_scans where chain_id = any(${ids}::text[])`);
}

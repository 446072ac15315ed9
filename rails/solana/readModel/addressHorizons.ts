import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../../db/client.ts";

/** Each address's own evidence horizon (absent: no scan of it has read everything yet). */
export async function addressHorizons(db: Db, chainId: string, addresses: readonly string[]): Promise<Map<string, Date>> {
  if (addresses.length === 0) return new Map();
  const rows = await queryRows<{ address: string; through: Date | string }>(db, sql`
    select address, evidence_through as through from solana_address_scans
    where chain_id = ${chainId} and address = any(${sql.param([...addresses])}::text[]) and evidence_through is not null`);
  return new Map(rows.map((r) => [r.address, new Date(r.through)]));
}

import { sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";

/**
 * Per Solana chain, the open payments whose own account's evidence is behind the chain's
 * (its scans fail, or none has read it through): their expiry is held while the chain's
 * other payments expire and complete as usual (docs/decisions/solana.md).
 */
export async function heldPaymentsByChain(db: Db): Promise<Map<string, number>> {
  const rows = await queryRows<{ chain_id: string; held: number }>(db, sql`
    select s.chain_id, count(distinct p.id)::int as held
    from solana_address_scans s
    join payments p on p.id = s.payment_id
    join solana_ingest_heads h on h.chain_id = s.chain_id
    where p.status in ('pending', 'confirming') and h.evidence_through is not null
      and (s.evidence_through is null or s.evidence_through < h.evidence_through)
    group by s.chain_id`);
  return new Map(rows.map((r) => [r.chain_id, r.held]));
}

/** Per chain, the payments open now (pending or confirming). */
export async function openPaymentsByChain(db: Db): Promise<Map<string, number>> {
  const rows = await queryRows<{ chain_id: string; open: number }>(db, sql`
    select chain_id, count(*)::int as open from payments where status in ('pending', 'confirming') group by chain_id`);
  return new Map(rows.map((r) => [r.chain_id, r.open]));
}

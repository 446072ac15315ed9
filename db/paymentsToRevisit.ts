import { sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";

/** Payments whose answer changes with the head alone: confirmations still growing. */
export async function confirmingPayments(db: Db, chainId: string): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(db, sql`select id from payments where chain_id = ${chainId} and status = 'confirming'`);
  return rows.map((r) => r.id);
}

/**
 * The periodic safety net: every open payment, pending ones past their expiry, and
 * completed ones still inside their network's finality window (a deep reorg can
 * still undo those; a sandbox simulation is final and needs no recheck).
 */
export async function paymentsToRecheck(db: Db, finality: Array<{ chainId: string; blocks: number }>): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(db, sql`
    select id from payments where status in ('pending', 'confirming') and (amount_received > 0 or expires_at < now() or status = 'confirming')
    union
    select p.id from payments p
    join unnest(${sql.param(finality.map((f) => f.chainId))}::text[], ${sql.param(finality.map((f) => f.blocks))}::int[]) as f(chain_id, blocks)
      on f.chain_id = p.chain_id
    where p.status = 'completed' and p.confirmations < f.blocks * 2 and p.completed_via is distinct from 'simulation'`);
  return rows.map((r) => r.id);
}

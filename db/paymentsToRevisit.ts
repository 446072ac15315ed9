import { sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";

/** Payments whose answer changes with the head alone: confirmations still growing. */
export async function confirmingPayments(db: Db, chainId: string): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(db, sql`select id from payments where chain_id = ${chainId} and status = 'confirming'`);
  return rows.map((r) => r.id);
}

/**
 * The periodic safety net: confirming payments; pending ones with money seen, past their
 * expiry, or with a sandbox simulation not reconciled yet (its reconcile failed after the
 * credit committed);
 * completed ones whose completing block is not final yet (`finalized`, per chain): a
 * reorg deeper than the confirmations seen can still undo those. Where a chain's final
 * block is unknown (its node unreachable now), completed payments are rechecked while
 * their confirmations are under twice the required ones, if completed within the day (no
 * chain takes longer to finalise: without it, a payment final before it reached twice its
 * confirmations, which dispatch then stops counting, matched on every hiccup for good).
 * A sandbox simulation is final.
 * Also ended payments (completed, expired, closed) with money in a block not final yet
 * (late money, an excess): a reorg that removes it takes it off what they owe back.
 * `everyOpen` (prompts were lost): every pending payment, and those that ended within the
 * day (late money whose prompt was lost), once.
 */
export async function paymentsToRecheck(
  db: Db,
  finality: Array<{ chainId: string; finalized: bigint | null; blocks: number }>,
  options: { everyOpen?: boolean } = {},
): Promise<string[]> {
  const everyOpen = options.everyOpen === true;
  // Apart, so the known chains' branch is a range read of the completing-block index (a CASE
  // across both kept it a scan of every completed payment, every 30 s).
  const known = finality.filter((f) => f.finalized !== null);
  const unknown = finality.filter((f) => f.finalized === null);
  const rows = await queryRows<{ id: string }>(db, sql`
    select id from payments where status in ('pending', 'confirming') and (amount_received > 0 or expires_at < now() or status = 'confirming'
      or exists (select 1 from simulated_credits s where s.payment_id = payments.id) or ${everyOpen})
    ${everyOpen ? sql`union select id from payments where updated_at > now() - interval '1 day'` : sql``}
    union
    select p.id from payments p
    join unnest(${sql.param(known.map((f) => f.chainId))}::text[], ${sql.param(known.map((f) => f.finalized!.toString()))}::numeric[]) as f(chain_id, finalized)
      on f.chain_id = p.chain_id
    where p.status = 'completed' and p.completed_via is distinct from 'simulation' and p.completing_block > f.finalized
    ${
      unknown.length === 0
        ? sql``
        : sql`union
    select p.id from payments p
    join unnest(${sql.param(unknown.map((f) => f.chainId))}::text[], ${sql.param(unknown.map((f) => f.blocks))}::int[]) as f(chain_id, blocks)
      on f.chain_id = p.chain_id
    where p.status = 'completed' and p.completed_via is distinct from 'simulation'
      and p.confirmations < f.blocks * 2 and p.confirmed_at > now() - interval '1 day'`
    }
    union
    select p.id from payments p
    join unnest(${sql.param(finality.map((f) => f.chainId))}::text[], ${sql.param(finality.map((f) => f.finalized?.toString() ?? null))}::numeric[]) as f(chain_id, finalized)
      on f.chain_id = p.chain_id
    where p.evidence_block > f.finalized and p.status not in ('pending', 'confirming')`);
  return rows.map((r) => r.id);
}

/**
 * Payments with a credit above `block` on a chain — the one that completed them, or any
 * other (late money, an excess, a part): what a reorg rewriting those blocks may have undone.
 * A sandbox simulation is final (its credit sits above every block: it would match every time).
 */
export async function paymentsWithEvidenceAbove(db: Db, chainId: string, block: bigint): Promise<string[]> {
  const rows = await queryRows<{ id: string }>(db, sql`
    select id from payments where chain_id = ${chainId} and status in ('confirming', 'completed') and completing_block > ${block.toString()}::numeric
      and completed_via is distinct from 'simulation'
    union
    select id from payments where chain_id = ${chainId} and evidence_block > ${block.toString()}::numeric`);
  return rows.map((r) => r.id);
}

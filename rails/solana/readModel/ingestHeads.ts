import { sql } from "drizzle-orm";
import type { Config } from "../../../config/index.ts";
import { queryRows, type Db } from "../../../db/client.ts";

/**
 * The Solana rail's indexed head per chain, on the scale `settle` counts confirmations
 * on: the finalized slot the subscriber has verified every credit below (`F`), plus
 * the network's required confirmations less one. A credit at slot `s` then has
 * `F + required - s` confirmations: it reaches the requirement exactly when its slot is
 * finalized and checked, never before (the requirement maps to `finalized`).
 */
export async function solanaIndexedHeads(db: Db, config: Config): Promise<Map<string, bigint>> {
  const rows = await queryRows<{ chain_id: string; finalized_slot: string }>(db, sql`select chain_id, finalized_slot::text from solana_ingest_heads`);
  const required = new Map(config.networks.filter((n) => n.type === "solana").map((n) => [n.chainId, BigInt(Math.max(1, n.requiredConfirmations))]));
  const heads = new Map<string, bigint>();
  for (const r of rows) {
    const confirmations = required.get(r.chain_id);
    if (confirmations !== undefined) heads.set(r.chain_id, BigInt(r.finalized_slot) + confirmations - 1n);
  }
  return heads;
}

/** The head row of one chain (null before the subscriber's first pass). */
export async function ingestHeadOf(db: Db, chainId: string): Promise<{ confirmedSlot: bigint; finalizedSlot: bigint } | null> {
  const [row] = await queryRows<{ confirmed_slot: string; finalized_slot: string }>(
    db,
    sql`select confirmed_slot::text, finalized_slot::text from solana_ingest_heads where chain_id = ${chainId}`,
  );
  return row ? { confirmedSlot: BigInt(row.confirmed_slot), finalizedSlot: BigInt(row.finalized_slot) } : null;
}

/**
 * The Solana rail's evidence horizon per chain: the block time through which the
 * subscriber has looked at every watched account (`evidence_through`). Chains it has
 * never fully polled have no bound yet.
 */
export async function solanaEvidenceHorizons(db: Db): Promise<Map<string, Date>> {
  const rows = await queryRows<{ chain_id: string; evidence_through: Date | string }>(
    db,
    sql`select chain_id, evidence_through from solana_ingest_heads where evidence_through is not null`,
  );
  return new Map(rows.map((r) => [r.chain_id, new Date(r.evidence_through)]));
}

/** Moves a chain's evidence horizon forward to `through` (never back; nothing before the head row exists). */
export async function recordEvidenceThrough(db: Db, chainId: string, through: Date): Promise<void> {
  await db.execute(sql`
    update solana_ingest_heads set evidence_through = greatest(coalesce(evidence_through, ${through}), ${through})
    where chain_id = ${chainId}`);
}

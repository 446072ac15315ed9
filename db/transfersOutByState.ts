import { sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";

export type TransfersOutState = {
  chainId: string;
  kind: "sweep" | "refund";
  /** Rows requested or broadcast, not yet final. */
  inFlight: number;
  /** Of those, how many have not moved for longer than `stuckAfterSeconds`. */
  stuck: number;
  /** Seconds the oldest in-flight row has waited since its last change. */
  oldestSeconds: number;
};

/**
 * Sweeps and refunds not yet final, per chain and kind (for metrics): a row is stuck once
 * it has not changed for `stuckAfterSeconds` (health uses three replacement rounds).
 */
export async function transfersOutByState(db: Db, stuckAfterSeconds: number): Promise<TransfersOutState[]> {
  const rows = await queryRows<{ chain_id: string; kind: "sweep" | "refund"; n: number; stuck: number; oldest: number }>(
    db,
    sql`select chain_id, kind, count(*)::int as n,
               count(*) filter (where updated_at < now() - make_interval(secs => ${stuckAfterSeconds}))::int as stuck,
               floor(extract(epoch from now() - min(updated_at)))::int as oldest
        from transfers_out where status in ('requested', 'broadcast') group by chain_id, kind order by chain_id, kind`,
  );
  return rows.map((r) => ({ chainId: r.chain_id, kind: r.kind, inFlight: r.n, stuck: r.stuck, oldestSeconds: r.oldest }));
}

import { sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";
import { OUT_SINCE } from "./transfersOut.ts";

export type TransfersOutState = {
  chainId: string;
  kind: "sweep" | "refund";
  /** Rows requested or broadcast, not yet final. */
  inFlight: number;
  /** Of those, how many have been out (or, unsent, unchanged) for longer than `stuckAfterSeconds`. */
  stuck: number;
  /** Seconds the oldest in-flight row has waited (`OUT_SINCE`). */
  oldestSeconds: number;
};

/**
 * Sweeps and refunds not yet final, per chain and kind (for metrics): a row is stuck once
 * it has waited `stuckAfterSeconds` (`OUT_SINCE`; health uses three replacement rounds).
 */
export async function transfersOutByState(db: Db, stuckAfterSeconds: number): Promise<TransfersOutState[]> {
  const rows = await queryRows<{ chain_id: string; kind: "sweep" | "refund"; n: number; stuck: number; oldest: number }>(
    db,
    sql`select chain_id, kind, count(*)::int as n,
               count(*) filter (where ${OUT_SINCE} < now() - make_interval(secs => ${stuckAfterSeconds}))::int as stuck,
               floor(extract(epoch from now() - min(${OUT_SINCE})))::int as oldest
        from transfers_out where status in ('requested', 'broadcast') group by chain_id, kind order by chain_id, kind`,
  );
  return rows.map((r) => ({ chainId: r.chain_id, kind: r.kind, inFlight: r.n, stuck: r.stuck, oldestSeconds: r.oldest }));
}

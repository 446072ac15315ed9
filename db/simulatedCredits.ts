import { eq, sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";
import { simulatedCredits } from "./schema/index.ts";

export type SimulatedCreditRow = typeof simulatedCredits.$inferSelect;

/**
 * Block number given to a simulated credit: after every real block (so it is the one
 * that completes the amount) and never reached by a head (so no live confirmation count
 * is derived from it); the credit is `final`, so it counts as fully confirmed.
 */
export const SIMULATED_CREDIT_BLOCK = 2n ** 64n - 1n;

export async function findSimulatedCredit(db: Db, paymentId: string): Promise<SimulatedCreditRow | undefined> {
  const [row] = await db.select().from(simulatedCredits).where(eq(simulatedCredits.paymentId, paymentId));
  return row;
}

/** Records the sandbox's stand-in for an on-chain payment (one per payment at most). */
export async function insertSimulatedCredit(db: Db, values: { paymentId: string; txHash: string; amount: bigint; createdAt: Date }): Promise<void> {
  await db.insert(simulatedCredits).values(values);
}

/** Simulations of these payments; test payments only (the join makes a live payment ignore any such row). */
export function simulatedCreditsOf(db: Db, paymentIds: readonly string[]) {
  return queryRows<{ payment_id: string; amount: string; ts: string; tx_hash: string }>(db, sql`
    select s.payment_id, s.amount::text, extract(epoch from s.created_at)::text as ts, s.tx_hash
    from simulated_credits s join payments p on p.id = s.payment_id and p.is_test and p.mode = 'test'
    where s.payment_id = any(${sql.param([...paymentIds])}::uuid[])`);
}

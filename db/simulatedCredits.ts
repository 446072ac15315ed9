import { eq } from "drizzle-orm";
import type { Db } from "./client.ts";
import { simulatedCredits } from "./schema/index.ts";

export type SimulatedCreditRow = typeof simulatedCredits.$inferSelect;

export async function findSimulatedCredit(db: Db, paymentId: string): Promise<SimulatedCreditRow | undefined> {
  const [row] = await db.select().from(simulatedCredits).where(eq(simulatedCredits.paymentId, paymentId));
  return row;
}

/** Records the sandbox's stand-in for an on-chain payment (one per payment at most). */
export async function insertSimulatedCredit(db: Db, values: { paymentId: string; txHash: string; amount: bigint; createdAt: Date }): Promise<void> {
  await db.insert(simulatedCredits).values(values);
}

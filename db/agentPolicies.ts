import { and, asc, eq, getTableColumns, sql } from "drizzle-orm";
import type { Mode } from "../config/index.ts";
import { usdUnitsOfAmount } from "./usdUnits.ts";
import { queryRows, type Db } from "./client.ts";
import { agentPolicies } from "./schema/index.ts";

export type AgentPolicyRow = typeof agentPolicies.$inferSelect;
export type AgentPolicyValues = Pick<AgentPolicyRow, "maxPerPayment" | "dailyLimit" | "allowedNetworks" | "allowedTokens" | "expiresAt" | "active">;

const ofAgent = (merchantId: string, mode: Mode, agentId: string) =>
  and(eq(agentPolicies.merchantId, merchantId), eq(agentPolicies.mode, mode), eq(agentPolicies.agentId, agentId));

export async function findAgentPolicy(db: Db, merchantId: string, mode: Mode, agentId: string): Promise<AgentPolicyRow | undefined> {
  const [row] = await db.select().from(agentPolicies).where(ofAgent(merchantId, mode, agentId));
  return row;
}

/**
 * The agent's policy with its row locked until the transaction ends: concurrent payments
 * by one agent are checked one after the other, so together they cannot pass the daily limit.
 */
export async function lockAgentPolicy(tx: Db, merchantId: string, mode: Mode, agentId: string): Promise<AgentPolicyRow | undefined> {
  const [row] = await tx.select().from(agentPolicies).where(ofAgent(merchantId, mode, agentId)).for("update");
  return row;
}

/** Creates or replaces the whole policy; `created` tells which. */
export async function putAgentPolicy(db: Db, merchantId: string, mode: Mode, agentId: string, values: AgentPolicyValues) {
  const [row] = await db
    .insert(agentPolicies)
    .values({ merchantId, mode, agentId, ...values })
    .onConflictDoUpdate({
      target: [agentPolicies.merchantId, agentPolicies.mode, agentPolicies.agentId],
      set: { ...values, updatedAt: sql`now()` },
    })
    .returning({ ...getTableColumns(agentPolicies), created: sql<boolean>`(xmax = 0)` });
  const { created, ...policy } = row!;
  return { policy: policy as AgentPolicyRow, created: Boolean(created) };
}

/** Sets the policy inactive (the agent's payments are refused); undefined when the agent has none. */
export async function deactivateAgentPolicy(db: Db, merchantId: string, mode: Mode, agentId: string): Promise<AgentPolicyRow | undefined> {
  const [row] = await db.update(agentPolicies).set({ active: false, updatedAt: sql`now()` }).where(ofAgent(merchantId, mode, agentId)).returning();
  return row;
}

export async function deleteAgentPolicy(db: Db, merchantId: string, mode: Mode, agentId: string): Promise<boolean> {
  const rows = await db.delete(agentPolicies).where(ofAgent(merchantId, mode, agentId)).returning({ id: agentPolicies.id });
  return rows.length > 0;
}

/**
 * What the agent has created since `since`, in 10^-18 USD (USD stablecoins 1:1), summed
 * exactly in SQL: payments that failed, were cancelled or expired do not count.
 */
export async function agentSpentSince(db: Db, merchantId: string, mode: Mode, agentId: string, since: Date): Promise<bigint> {
  const [row] = await queryRows<{ total: string }>(db, sql`
    select round(coalesce(sum(${usdUnitsOfAmount}), 0))::text as total
    from payments
    where merchant_id = ${merchantId} and mode = ${mode} and agent_id = ${agentId}
      and created_at >= ${since.toISOString()}::timestamptz
      and status not in ('failed', 'cancelled', 'expired')`);
  return BigInt(row?.total ?? "0");
}

/** The merchant's agent policies in one mode, by agent id. */
export const listAgentPolicies = (db: Db, merchantId: string, mode: Mode): Promise<AgentPolicyRow[]> =>
  db.select().from(agentPolicies).where(and(eq(agentPolicies.merchantId, merchantId), eq(agentPolicies.mode, mode))).orderBy(asc(agentPolicies.agentId));

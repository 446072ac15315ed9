import { and, eq, sql } from "drizzle-orm";
import type { Mode } from "../domain/mode.ts";
import type { Db } from "./client.ts";
import { agentSettings } from "./schema/index.ts";

export type UnknownAgents = "allow" | "deny";

/** Whether an agent without a policy may create payments for this merchant in this mode (`allow` unless set). */
export async function findUnknownAgents(db: Db, merchantId: string, mode: Mode): Promise<UnknownAgents> {
  const [row] = await db
    .select({ unknownAgents: agentSettings.unknownAgents })
    .from(agentSettings)
    .where(and(eq(agentSettings.merchantId, merchantId), eq(agentSettings.mode, mode)));
  return row?.unknownAgents ?? "allow";
}

/** Sets how agents without a policy are treated, for this merchant and mode. */
export async function setUnknownAgents(db: Db, merchantId: string, mode: Mode, unknownAgents: UnknownAgents): Promise<void> {
  await db
    .insert(agentSettings)
    .values({ merchantId, mode, unknownAgents })
    .onConflictDoUpdate({ target: [agentSettings.merchantId, agentSettings.mode], set: { unknownAgents, updatedAt: sql`now()` } });
}

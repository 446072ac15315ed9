import { and, desc, eq, gt, sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { dashboardAudit, dashboardUsers } from "./schema/index.ts";

export type AuditEntry = { merchantId: string; userId: string | null; action: string; details?: Record<string, unknown>; ip: string | null; userAgent: string | null };

/** Writes who did what, from where (the time is the row's). */
export async function recordAudit(db: Db, entry: AuditEntry): Promise<void> {
  await db.insert(dashboardAudit).values({ ...entry, details: entry.details ?? {}, userAgent: entry.userAgent?.slice(0, 300) ?? null });
}

/** The merchant's latest audit entries, newest first, with the e-mail of who acted. */
export const recentAudit = (db: Db, merchantId: string, limit = 50) =>
  db
    .select({ entry: dashboardAudit, email: dashboardUsers.email })
    .from(dashboardAudit)
    .leftJoin(dashboardUsers, eq(dashboardUsers.id, dashboardAudit.userId))
    .where(eq(dashboardAudit.merchantId, merchantId))
    .orderBy(desc(dashboardAudit.createdAt))
    .limit(limit);

/** How many entries of this action the merchant's log got in the last `seconds` (bounds how often an action may run). */
export async function recentAuditCount(db: Db, merchantId: string, action: string, seconds: number): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(dashboardAudit)
    .where(and(eq(dashboardAudit.merchantId, merchantId), gt(dashboardAudit.createdAt, sql`now() - make_interval(secs => ${seconds})`), eq(dashboardAudit.action, action)));
  return row?.n ?? 0;
}

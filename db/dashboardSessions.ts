import { and, eq, sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { dashboardSessions, dashboardUsers } from "./schema/index.ts";
import type { DashboardUserRow } from "./dashboardUsers.ts";

export type DashboardSessionRow = typeof dashboardSessions.$inferSelect;

export async function insertSession(db: Db, values: { id: string; userId: string; csrfToken: string }): Promise<void> {
  await db.insert(dashboardSessions).values(values);
}

/**
 * The live session with this id and its user, its `last_seen_at` moved to now in the same
 * statement. Undefined once revoked, idle longer than `idleMs`, older than `absoluteMs`, or
 * its user removed: the timeouts are checked by Postgres's clock, the one all API replicas share.
 */
export async function touchSession(
  db: Db,
  id: string,
  limits: { idleMs: number; absoluteMs: number },
): Promise<{ session: DashboardSessionRow; user: DashboardUserRow } | undefined> {
  const [session] = await db
    .update(dashboardSessions)
    .set({ lastSeenAt: sql`now()` })
    .where(
      and(
        eq(dashboardSessions.id, id),
        eq(dashboardSessions.revoked, false),
        sql`${dashboardSessions.lastSeenAt} > now() - make_interval(secs => ${limits.idleMs / 1000})`,
        sql`${dashboardSessions.createdAt} > now() - make_interval(secs => ${limits.absoluteMs / 1000})`,
      ),
    )
    .returning();
  if (!session) return undefined;
  const [user] = await db.select().from(dashboardUsers).where(and(eq(dashboardUsers.id, session.userId), sql`${dashboardUsers.removedAt} is null`));
  return user ? { session, user } : undefined;
}

export async function revokeSession(db: Db, id: string): Promise<void> {
  await db.update(dashboardSessions).set({ revoked: true }).where(eq(dashboardSessions.id, id));
}

/** Signs a user out everywhere: every session of theirs is revoked. */
export async function revokeUserSessions(db: Db, userId: string): Promise<number> {
  const rows = await db
    .update(dashboardSessions)
    .set({ revoked: true })
    .where(and(eq(dashboardSessions.userId, userId), eq(dashboardSessions.revoked, false)))
    .returning({ id: dashboardSessions.id });
  return rows.length;
}

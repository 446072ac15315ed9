import { and, eq, sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { dashboardSessions, dashboardUsers } from "./schema/index.ts";
import type { DashboardUserRow } from "./dashboardUsers.ts";

export type DashboardSessionRow = typeof dashboardSessions.$inferSelect;

export async function insertSession(db: Db, values: { id: string; userId: string; csrfToken: string }): Promise<void> {
  await db.insert(dashboardSessions).values(values);
}

/**
 * The live session with this id and its user. Undefined once revoked, idle longer than
 * `idleMs`, older than `absoluteMs`, or its user removed: the timeouts are checked by
 * Postgres's clock, the one all API replicas share. `touch`: the person acted, so
 * `last_seen_at` moves to now in the same statement (a page refreshing itself does not).
 */
export async function liveSession(
  db: Db,
  id: string,
  limits: { idleMs: number; absoluteMs: number },
  touch: boolean,
): Promise<{ session: DashboardSessionRow; user: DashboardUserRow } | undefined> {
  const live = and(
    eq(dashboardSessions.id, id),
    eq(dashboardSessions.revoked, false),
    sql`${dashboardSessions.lastSeenAt} > now() - make_interval(secs => ${limits.idleMs / 1000})`,
    sql`${dashboardSessions.createdAt} > now() - make_interval(secs => ${limits.absoluteMs / 1000})`,
  );
  const [session] = touch
    ? await db.update(dashboardSessions).set({ lastSeenAt: sql`now()` }).where(live).returning()
    : await db.select().from(dashboardSessions).where(live);
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

/** Deletes the user's sessions that can never be used again (revoked or timed out): the table does not grow with every sign-in. */
export async function deleteDeadSessions(db: Db, userId: string, limits: { idleMs: number; absoluteMs: number }): Promise<void> {
  await db
    .delete(dashboardSessions)
    .where(
      and(
        eq(dashboardSessions.userId, userId),
        sql`(${dashboardSessions.revoked}
          or ${dashboardSessions.lastSeenAt} <= now() - make_interval(secs => ${limits.idleMs / 1000})
          or ${dashboardSessions.createdAt} <= now() - make_interval(secs => ${limits.absoluteMs / 1000}))`,
      ),
    );
}

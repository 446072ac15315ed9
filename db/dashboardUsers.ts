import { and, eq, isNull, sql } from "drizzle-orm";
import type { DashboardRole } from "../domain/dashboardRole.ts";
import type { Db } from "./client.ts";
import { dashboardInvites, dashboardSessions, dashboardUsers } from "./schema/index.ts";

export type DashboardUserRow = typeof dashboardUsers.$inferSelect;

/** The active user signing in with this e-mail (compared lower-cased), if any. */
export async function findUserByEmail(db: Db, email: string): Promise<DashboardUserRow | undefined> {
  const [row] = await db
    .select()
    .from(dashboardUsers)
    .where(and(eq(dashboardUsers.email, email.trim().toLowerCase()), isNull(dashboardUsers.removedAt)))
    .limit(1);
  return row;
}

export async function findUser(db: Db, id: string): Promise<DashboardUserRow | undefined> {
  const [row] = await db.select().from(dashboardUsers).where(eq(dashboardUsers.id, id)).limit(1);
  return row;
}

/**
 * An invitation: the user (created without a password, or given the new role if the e-mail
 * is already this merchant's) and a one-time token's hash. Null when the e-mail belongs to
 * another merchant's team (one e-mail, one account).
 */
export async function inviteUser(
  db: Db,
  input: { merchantId: string; email: string; role: DashboardRole; tokenHash: string; expiresAt: Date },
): Promise<DashboardUserRow | null> {
  return db.transaction(async (tx) => {
    const email = input.email.trim().toLowerCase();
    const [inserted] = await tx
      .insert(dashboardUsers)
      .values({ merchantId: input.merchantId, email, role: input.role })
      .onConflictDoNothing()
      .returning();
    const user = inserted ?? (await findUserByEmail(tx as unknown as Db, email));
    if (!user || user.merchantId !== input.merchantId) return null;
    await tx.insert(dashboardInvites).values({ tokenHash: input.tokenHash, userId: user.id, role: input.role, expiresAt: input.expiresAt });
    return user;
  });
}

/** The user an unused, unexpired invite names, for the page that accepts it. */
export async function findOpenInvite(db: Db, tokenHash: string): Promise<DashboardUserRow | undefined> {
  const [row] = await db
    .select({ user: dashboardUsers })
    .from(dashboardInvites)
    .innerJoin(dashboardUsers, eq(dashboardUsers.id, dashboardInvites.userId))
    .where(and(eq(dashboardInvites.tokenHash, tokenHash), isNull(dashboardInvites.usedAt), sql`${dashboardInvites.expiresAt} > now()`, isNull(dashboardUsers.removedAt)))
    .limit(1);
  return row?.user;
}

/**
 * Uses an invite once: sets the user's password hash, name and the invite's role. Undefined
 * when the invite was used, expired or never existed (two tabs accepting at once: one wins).
 */
export async function acceptInvite(db: Db, tokenHash: string, input: { passwordHash: string; name: string | null }): Promise<DashboardUserRow | undefined> {
  return db.transaction(async (tx) => {
    const [invite] = await tx
      .update(dashboardInvites)
      .set({ usedAt: sql`now()` })
      .where(and(eq(dashboardInvites.tokenHash, tokenHash), isNull(dashboardInvites.usedAt), sql`${dashboardInvites.expiresAt} > now()`))
      .returning();
    if (!invite) return undefined;
    const [user] = await tx
      .update(dashboardUsers)
      .set({ passwordHash: input.passwordHash, name: input.name, role: invite.role })
      .where(and(eq(dashboardUsers.id, invite.userId), isNull(dashboardUsers.removedAt)))
      .returning();
    return user;
  });
}

/**
 * The sandbox's owner (`npm start`, never production): created, or given a new password hash
 * (and the sandbox merchant of this start), on every start; its earlier sessions are ended.
 */
export async function setSandboxOwner(db: Db, merchantId: string, email: string, passwordHash: string): Promise<DashboardUserRow> {
  const [row] = await db
    .insert(dashboardUsers)
    .values({ merchantId, email, role: "owner", passwordHash, name: "Sandbox owner" })
    .onConflictDoUpdate({ target: dashboardUsers.email, set: { merchantId, passwordHash, role: "owner", removedAt: null } })
    .returning();
  await db.update(dashboardSessions).set({ revoked: true }).where(eq(dashboardSessions.userId, row!.id));
  return row!;
}

/** Turns TOTP on (a base32 secret) or off (null) for a user. */
export async function setTotpSecret(db: Db, userId: string, secret: string | null): Promise<void> {
  await db.update(dashboardUsers).set({ totpSecret: secret }).where(eq(dashboardUsers.id, userId));
}

import { and, asc, eq, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
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
 * An invitation: the user (created without a password, or given the new role at once if the
 * e-mail is already this merchant's) and a one-time token's hash. Null when the e-mail belongs to
 * another merchant's team (one e-mail, one account).
 */
export async function inviteUser(
  db: Db,
  input: { merchantId: string; email: string; role: DashboardRole; tokenHash: string; expiresAt: Date },
): Promise<DashboardUserRow | null> {
  return db.transaction(async (tx) => {
    const email = input.email.trim().toLowerCase();
    // A member removed earlier comes back as new: no password, no TOTP, until the invite is accepted.
    const [inserted] = await tx
      .insert(dashboardUsers)
      .values({ merchantId: input.merchantId, email, role: input.role })
      .onConflictDoUpdate({
        target: dashboardUsers.email,
        set: { removedAt: null, passwordHash: null, totpSecret: null, role: input.role },
        setWhere: and(eq(dashboardUsers.merchantId, input.merchantId), isNotNull(dashboardUsers.removedAt)),
      })
      .returning();
    let user = inserted ?? (await findUserByEmail(tx as unknown as Db, email));
    if (!user || user.merchantId !== input.merchantId) return null;
    // The role is the inviter's decision, made now: accepting the link later never changes it.
    if (user.role !== input.role) [user] = await tx.update(dashboardUsers).set({ role: input.role }).where(eq(dashboardUsers.id, user.id)).returning();
    await tx.insert(dashboardInvites).values({ tokenHash: input.tokenHash, userId: user!.id, role: input.role, expiresAt: input.expiresAt });
    return user ?? null;
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
 * Uses an invite once: sets the user's password hash and name (the role was set when invited,
 * so a role changed since, by an owner, stands). Undefined
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
      .set({ passwordHash: input.passwordHash, name: input.name })
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
export async function setTotpSecret(db: Db, userId: string, secret: string | null, usedStep: number | null = null): Promise<void> {
  await db.update(dashboardUsers).set({ totpSecret: secret, totpLastStep: usedStep }).where(eq(dashboardUsers.id, userId));
}

/**
 * Takes a TOTP time step for the user if it is later than the last one taken: one statement,
 * so two requests racing with the same code cannot both pass. False for a code already used
 * (or one older than a code used since).
 */
export async function claimTotpStep(db: Db, userId: string, step: number): Promise<boolean> {
  const rows = await db
    .update(dashboardUsers)
    .set({ totpLastStep: step })
    .where(and(eq(dashboardUsers.id, userId), or(isNull(dashboardUsers.totpLastStep), lt(dashboardUsers.totpLastStep, step))))
    .returning({ id: dashboardUsers.id });
  return rows.length === 1;
}

/** The merchant's team (members not removed), oldest first. */
export const teamOf = (db: Db, merchantId: string): Promise<DashboardUserRow[]> =>
  db
    .select()
    .from(dashboardUsers)
    .where(and(eq(dashboardUsers.merchantId, merchantId), isNull(dashboardUsers.removedAt)))
    .orderBy(asc(dashboardUsers.createdAt));

/**
 * Gives a member of the merchant's team a new role, or removes them (`null`), ending their
 * sessions. Under a lock on the team's owners, so the last owner can never be demoted or
 * removed, even by two owners at once. `not_found`: no such member of this team.
 */
export async function changeMember(db: Db, merchantId: string, userId: string, role: DashboardRole | null): Promise<"done" | "not_found" | "last_owner"> {
  return db.transaction(async (tx) => {
    const owners = await tx
      .select({ id: dashboardUsers.id })
      .from(dashboardUsers)
      .where(and(eq(dashboardUsers.merchantId, merchantId), eq(dashboardUsers.role, "owner"), isNull(dashboardUsers.removedAt)))
      .for("update");
    const [member] = await tx
      .select()
      .from(dashboardUsers)
      .where(and(eq(dashboardUsers.id, userId), eq(dashboardUsers.merchantId, merchantId), isNull(dashboardUsers.removedAt)))
      .for("update");
    if (!member) return "not_found";
    if (member.role === "owner" && role !== "owner" && owners.length <= 1) return "last_owner";
    if (role === null) {
      await tx.update(dashboardUsers).set({ removedAt: sql`now()` }).where(eq(dashboardUsers.id, userId));
      await tx.update(dashboardSessions).set({ revoked: true }).where(eq(dashboardSessions.userId, userId));
    } else {
      await tx.update(dashboardUsers).set({ role }).where(eq(dashboardUsers.id, userId));
    }
    return "done";
  });
}

/** The merchant dashboard's people: users per merchant, their sessions, invites, and the audit log. */
import { sql } from "drizzle-orm";
import { bigint, boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { dashboardRoles } from "../../domain/dashboardRole.ts";
import { createdAt } from "./columns.ts";
import { merchants } from "./merchants.ts";

/**
 * A member of a merchant's team. The e-mail is unique across the service (sign-in names no
 * merchant), stored lower-cased. The password is an argon2id hash (`Bun.password`);
 * `totpSecret` (base32) is null while TOTP is off.
 */
export const dashboardUsers = pgTable(
  "dashboard_users",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    name: text("name"),
    role: text("role", { enum: dashboardRoles }).notNull(),
    passwordHash: text("password_hash"),
    totpSecret: text("totp_secret"),
    /** The last TOTP time step (Unix time / 30 s) accepted: a code is never accepted twice, nor an older one. */
    totpLastStep: bigint("totp_last_step", { mode: "number" }),
    createdAt: createdAt(),
    removedAt: timestamp("removed_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("dashboard_users_email_idx").on(t.email), index("dashboard_users_merchant_idx").on(t.merchantId)],
);

/**
 * A signed-in browser. The id is the SHA-256 of the cookie's random token (a database
 * leak gives no usable cookie). `csrfToken` goes in every form and htmx request.
 */
export const dashboardSessions = pgTable(
  "dashboard_sessions",
  {
    id: text("id").primaryKey(),
    userId: uuid("user_id").notNull().references(() => dashboardUsers.id, { onDelete: "cascade" }),
    csrfToken: text("csrf_token").notNull(),
    createdAt: createdAt(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
    revoked: boolean("revoked").notNull().default(false),
  },
  (t) => [index("dashboard_sessions_user_idx").on(t.userId).where(sql`not revoked`)],
);

/** A one-time invitation link: the SHA-256 of its token, the role it grants, until when. */
export const dashboardInvites = pgTable("dashboard_invites", {
  tokenHash: text("token_hash").primaryKey(),
  userId: uuid("user_id").notNull().references(() => dashboardUsers.id, { onDelete: "cascade" }),
  role: text("role", { enum: dashboardRoles }).notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  usedAt: timestamp("used_at", { withTimezone: true }),
  createdAt: createdAt(),
});

/** Who did what to a merchant's account, when and from where (dangerous actions and sign-ins). */
export const dashboardAudit = pgTable(
  "dashboard_audit",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    merchantId: uuid("merchant_id").notNull().references(() => merchants.id, { onDelete: "cascade" }),
    userId: uuid("user_id").references(() => dashboardUsers.id, { onDelete: "set null" }),
    action: text("action").notNull(),
    details: jsonb("details").$type<Record<string, unknown>>().notNull().default({}),
    ip: text("ip"),
    userAgent: text("user_agent"),
    createdAt: createdAt(),
  },
  (t) => [index("dashboard_audit_merchant_idx").on(t.merchantId, t.createdAt)],
);

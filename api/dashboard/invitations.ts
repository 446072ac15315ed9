import type { Config } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { inviteUser, type DashboardUserRow } from "../../db/dashboardUsers.ts";
import type { DashboardRole } from "../../domain/dashboardRole.ts";
import { dashboardTokenHash, newDashboardToken } from "../../domain/dashboardTokens.ts";

/** An e-mail address as far as the dashboard checks one: something@somewhere, no spaces. */
export const EMAIL_PATTERN = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export type Invitation = { user: DashboardUserRow; link: string; expiresAt: Date };

/**
 * A one-time invitation link to the merchant's dashboard (`/dashboard/invite/<token>`, valid
 * DASHBOARD_INVITE_HOURS): only the token's hash is stored, so the link is shown once, to
 * whoever invites (the operator's CLI, or an owner on the Team page). Null when the e-mail
 * belongs to another merchant's team.
 */
export async function createInvitation(deps: { db: Db; config: Config }, merchantId: string, email: string, role: DashboardRole): Promise<Invitation | null> {
  const token = newDashboardToken();
  const expiresAt = new Date(Date.now() + deps.config.dashboard.inviteMs);
  const user = await inviteUser(deps.db, { merchantId, email, role, tokenHash: dashboardTokenHash(token), expiresAt });
  if (!user) return null;
  return { user, link: `${deps.config.http.publicBaseUrl.replace(/\/+$/, "")}/dashboard/invite/${token}`, expiresAt };
}

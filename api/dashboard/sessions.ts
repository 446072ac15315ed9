import { recordAudit } from "../../db/dashboardAudit.ts";
import { deleteDeadSessions, insertSession } from "../../db/dashboardSessions.ts";
import type { DashboardUserRow } from "../../db/dashboardUsers.ts";
import { dashboardTokenHash, newDashboardToken } from "../../domain/dashboardTokens.ts";
import type { ApiDeps } from "../deps.ts";
import { sessionCookie } from "./cookies.ts";

/**
 * A new session for the user (its row keyed by the token's hash) and the cookie that carries
 * the token; the user's dead sessions are deleted on the way.
 */
export async function startSession(deps: ApiDeps, user: DashboardUserRow, from: { ip: string | null; userAgent: string | null }): Promise<string> {
  const token = newDashboardToken();
  await deleteDeadSessions(deps.db, user.id, deps.config.dashboard);
  await insertSession(deps.db, { id: dashboardTokenHash(token), userId: user.id, csrfToken: newDashboardToken() });
  await recordAudit(deps.db, { merchantId: user.merchantId, userId: user.id, action: "signed_in", ...from });
  const { absoluteMs, secureCookies } = deps.config.dashboard;
  return sessionCookie(token, secureCookies, Math.floor(absoluteMs / 1000));
}

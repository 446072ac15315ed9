import { Elysia } from "elysia";
import { changeMember, teamOf } from "../../../db/dashboardUsers.ts";
import { dashboardRoles, type DashboardRole } from "../../../domain/dashboardRole.ts";
import { modes } from "../../../domain/mode.ts";
import { uuidPattern } from "../../../domain/uuid.ts";
import type { ApiDeps } from "../../deps.ts";
import { changeAnnounced } from "../announceChange.ts";
import { dashboardGuard, type DashboardContext } from "../guard.ts";
import { html, type Html } from "../html.ts";
import { createInvitation, EMAIL_PATTERN } from "../invitations.ts";
import { csrfField, page } from "../layout.ts";
import { refusalPage } from "../refusals.ts";
import { htmlPage, seeOther } from "../respond.ts";

const field = (body: unknown, name: string): string => {
  const value = body && typeof body === "object" ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" ? value : "";
};
const isRole = (value: string): value is DashboardRole => (dashboardRoles as readonly string[]).includes(value);
const roleOptions = (chosen: string) => dashboardRoles.map((r) => html`<option value="${r}"${r === chosen ? html` selected` : null}>${r}</option>`);

/**
 * The merchant's team: who is in it, with which role. Owners invite (the one-time link is shown
 * on the answer, as the CLI prints it), change roles and remove members; the last owner stays.
 * Every change is audited.
 */
export const dashboardTeamRoutes = (deps: ApiDeps, assets: string) => {
  const { db } = deps;

  async function teamPage(dash: DashboardContext, options: { status?: number; problem?: string; notice?: Html } = {}) {
    const members = await teamOf(db, dash.merchantId);
    const owner = dash.user.role === "owner";
    const rows = members.map((m) => {
      const label = m.name ? `${m.name} <${m.email}>` : m.email;
      const actions = owner
        ? html`<form method="post" action="/dashboard/team/${m.id}/role" class="inline">${csrfField(dash.page.csrfToken)}<label class="visually-hidden" for="role-${m.id}">Role of ${m.email}</label><select id="role-${m.id}" name="role">${roleOptions(m.role)}</select> <button type="submit" class="secondary">Set role</button></form>
<form method="post" action="/dashboard/team/${m.id}/remove" class="inline">${csrfField(dash.page.csrfToken)}<button type="submit" class="danger" aria-label="${`Remove ${m.email}`}">Remove</button></form>`
        : m.role;
      return html`<tr><td>${label}</td><td>${m.passwordHash ? "active" : "invited"}${m.totpSecret ? ", two-step sign-in on" : null}</td><td>${actions}</td></tr>`;
    });
    const invite = html`<h2>Invite someone</h2>
<form method="post" action="/dashboard/team/invite" class="stack">
  ${csrfField(dash.page.csrfToken)}
  <label for="invite-email">E-mail</label><input id="invite-email" name="email" type="email" required maxlength="320">
  <label for="invite-role">Role</label><select id="invite-role" name="role">${roleOptions("viewer")}</select>
  <button type="submit">Create invitation link</button>
</form>`;
    const body = html`${options.notice ?? null}${options.problem ? html`<p role="alert" class="problem">${options.problem}</p>` : null}
<table><thead><tr><th scope="col">Member</th><th scope="col">State</th><th scope="col">Role</th></tr></thead><tbody>${rows}</tbody></table>
${owner ? invite : html`<p>Only an owner may invite, change roles or remove members.</p>`}`;
    return htmlPage(page(dash.page, { title: "Team", active: "team", body }), { status: options.status ?? 200 });
  }


  async function change(dash: DashboardContext, userId: string, role: DashboardRole | null) {
    if (!uuidPattern.test(userId)) return refusalPage(assets, 404, "No such member of this team.");
    // Audited and announced (`account.changed`, in both modes: a team is not of one mode) only when it happened.
    const result = { outcome: "not_found" as Awaited<ReturnType<typeof changeMember>> };
    await changeAnnounced(
      db,
      dash,
      async (tx) => ((result.outcome = await changeMember(tx, dash.merchantId, userId, role)) === "done" ? result : undefined),
      () => ({ action: role === null ? "team.removed" : "team.role_changed", details: { userId, ...(role ? { role } : {}) }, modes }),
    );
    const { outcome } = result;
    if (outcome === "not_found") return refusalPage(assets, 404, "No such member of this team.");
    if (outcome === "last_owner") return teamPage(dash, { status: 409, problem: "The team's last owner cannot be removed or given another role: make someone else an owner first." });
    return seeOther("/dashboard/team");
  }

  return new Elysia()
    .use(dashboardGuard(deps, assets))
    .get("/team", ({ dash }) => teamPage(dash), { dashboard: "read" })
    .post(
      "/team/invite",
      async ({ dash, body }) => {
        const email = field(body, "email").trim().toLowerCase();
        const role = field(body, "role");
        if (!EMAIL_PATTERN.test(email) || email.length > 320) return teamPage(dash, { status: 400, problem: "email: an e-mail address." });
        if (!isRole(role)) return teamPage(dash, { status: 400, problem: `role: one of ${dashboardRoles.join(", ")}.` });
        // An invitation (perhaps of a new owner) is announced like any team change.
        const invitation = await changeAnnounced(
          db,
          dash,
          async (tx) => (await createInvitation({ ...deps, db: tx }, dash.merchantId, email, role)) ?? undefined,
          () => ({ action: "team.invited", details: { email, role }, modes }),
        );
        if (!invitation) return teamPage(dash, { status: 409, problem: `email: ${email} already belongs to another merchant's team.` });
        const notice = html`<section class="secret" aria-labelledby="invite-link"><h2 id="invite-link">Invitation for ${email} (${role})</h2>
<p>Send this link to them; it works once, until ${invitation.expiresAt.toISOString()}, and is shown only now:</p>
<p><code id="invite-link-value">${invitation.link}</code></p></section>`;
        return teamPage(dash, { notice });
      },
      { dashboard: "owner" },
    )
    .post(
      "/team/:userId/role",
      ({ dash, params, body }) => {
        const role = field(body, "role");
        if (!isRole(role)) return teamPage(dash, { status: 400, problem: `role: one of ${dashboardRoles.join(", ")}.` });
        return change(dash, params.userId, role);
      },
      { dashboard: "owner" },
    )
    .post("/team/:userId/remove", ({ dash, params }) => change(dash, params.userId, null), { dashboard: "owner" });
};

import { Elysia } from "elysia";
import { recordAudit } from "../../../db/dashboardAudit.ts";
import { revokeSession, revokeUserSessions } from "../../../db/dashboardSessions.ts";
import { acceptInvite, findOpenInvite, findUserByEmail } from "../../../db/dashboardUsers.ts";
import { dashboardTokenHash } from "../../../domain/dashboardTokens.ts";
import type { ApiDeps } from "../../deps.ts";
import { clientIpOf } from "../../plugins/rateLimits.ts";
import { clearedSessionCookie, cookiesOf, modeCookie, SESSION_COOKIE } from "../cookies.ts";
import { dashboardGuard, sameOrigin } from "../guard.ts";
import { credentialsMatch, hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from "../passwords.ts";
import { refusalPage } from "../refusals.ts";
import { htmlPage, safeNext, seeOther } from "../respond.ts";
import { startSession } from "../sessions.ts";
import { invitePage, signInPage } from "../signInPages.ts";
import type { SignInThrottle } from "../signInThrottle.ts";

const field = (body: unknown, name: string): string => {
  const value = body && typeof body === "object" ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" ? value : "";
};

const NOT_SIGNED_IN = "That e-mail and password do not match an account (or the authentication code is wrong).";
const INVITE_GONE = "This invitation link is not valid: it was used, it expired, or it is mistyped. Ask an owner for a new one.";

/** Signing in and out, accepting an invitation, and the test/live switch. */
export const dashboardAccountRoutes = (deps: ApiDeps, assets: string, throttle: SignInThrottle) => {
  const { config, db } = deps;
  const crossSite = () => refusalPage(assets, 403, "This request did not come from the dashboard's own pages (cross-site requests are refused).");
  const from = (request: Request, server: Parameters<typeof clientIpOf>[1]) => ({
    ip: clientIpOf(request, server, config.rateLimits.clientIpHeader),
    userAgent: request.headers.get("user-agent"),
  });

  return new Elysia()
    .use(dashboardGuard(deps, assets))
    .get("/sign-in", ({ query }) =>
      htmlPage(signInPage(assets, { next: safeNext(query.next), notice: query.welcome ? "Your password is set: sign in." : undefined })),
    )
    .post("/sign-in", async ({ request, body, server }) => {
      if (!sameOrigin(request, config.http.publicBaseUrl)) return crossSite();
      const email = field(body, "email").trim().toLowerCase().slice(0, 320);
      const next = safeNext(field(body, "next"));
      const who = from(request, server);
      const lockedFor = await throttle.lockedFor(email, who.ip);
      if (lockedFor > 0) {
        const minutes = Math.ceil(lockedFor / 60);
        return htmlPage(signInPage(assets, { next, email, problem: `Too many failed attempts: try again in ${minutes} minute${minutes === 1 ? "" : "s"}.` }), {
          status: 429,
          headers: { "Retry-After": String(lockedFor) },
        });
      }
      const user = email ? await findUserByEmail(db, email) : undefined;
      if (!(await credentialsMatch(db, user, field(body, "password"), field(body, "totp")))) {
        await throttle.failed(email, who.ip);
        return htmlPage(signInPage(assets, { next, email, problem: NOT_SIGNED_IN }), { status: 401 });
      }
      await throttle.succeeded(email);
      return seeOther(next, { "Set-Cookie": await startSession(deps, user!, who) });
    })
    .get("/invite/:token", async ({ params }) => {
      const user = await findOpenInvite(db, dashboardTokenHash(params.token));
      if (!user) return refusalPage(assets, 404, INVITE_GONE);
      return htmlPage(invitePage(assets, { token: params.token, email: user.email }));
    })
    .post("/invite/:token", async ({ params, request, body, server }) => {
      if (!sameOrigin(request, config.http.publicBaseUrl)) return crossSite();
      const tokenHash = dashboardTokenHash(params.token);
      const invited = await findOpenInvite(db, tokenHash);
      if (!invited) return refusalPage(assets, 404, INVITE_GONE);
      const password = field(body, "password");
      const again = (problem: string) => htmlPage(invitePage(assets, { token: params.token, email: invited.email, problem }), { status: 400 });
      if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) return again(`password: from ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters.`);
      if (password !== field(body, "confirm")) return again("confirm: the two passwords differ.");
      const name = field(body, "name").trim().slice(0, 100) || null;
      const user = await acceptInvite(db, tokenHash, { passwordHash: await hashPassword(password), name });
      if (!user) return refusalPage(assets, 404, INVITE_GONE);
      await recordAudit(db, { merchantId: user.merchantId, userId: user.id, action: "invite.accepted", details: { role: user.role }, ...from(request, server) });
      return seeOther("/dashboard/sign-in?welcome=1");
    })
    .post(
      "/sign-out",
      async ({ request }) => {
        const token = cookiesOf(request)[SESSION_COOKIE];
        if (token) await revokeSession(db, dashboardTokenHash(token));
        return seeOther("/dashboard/sign-in", { "Set-Cookie": clearedSessionCookie(config.dashboard.secureCookies) });
      },
      { dashboard: "self" },
    )
    .post(
      "/sign-out-everywhere",
      async ({ dash }) => {
        const ended = await revokeUserSessions(db, dash.user.id);
        await recordAudit(db, { merchantId: dash.merchantId, userId: dash.user.id, action: "signed_out_everywhere", details: { sessions: ended }, ip: dash.ip, userAgent: dash.userAgent });
        return seeOther("/dashboard/sign-in", { "Set-Cookie": clearedSessionCookie(config.dashboard.secureCookies) });
      },
      { dashboard: "self" },
    )
    .post(
      "/mode",
      ({ body, request }) => {
        const mode = field(body, "mode");
        if (mode !== "test" && mode !== "live") return refusalPage(assets, 400, "mode: test or live.");
        const back = request.headers.get("referer");
        const path = back && URL.canParse(back) ? new URL(back).pathname : "";
        // Another mode's payment is not this mode's: go back to the list, not to the payment.
        return seeOther(safeNext(path.startsWith("/dashboard/payments/") ? "/dashboard/payments" : path), { "Set-Cookie": modeCookie(mode, config.dashboard.secureCookies) });
      },
      { dashboard: "self" },
    );
};

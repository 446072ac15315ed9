import { timingSafeEqual } from "node:crypto";
import { Elysia } from "elysia";
import { liveSession, type DashboardSessionRow } from "../../db/dashboardSessions.ts";
import type { DashboardUserRow } from "../../db/dashboardUsers.ts";
import { findMerchant } from "../../db/merchants.ts";
import { mayChange } from "../../domain/dashboardRole.ts";
import { dashboardTokenHash } from "../../domain/dashboardTokens.ts";
import type { Mode } from "../../domain/mode.ts";
import type { ApiDeps } from "../deps.ts";
import { clientIpOf } from "../plugins/rateLimits.ts";
import { cookiesOf, modeOf, SESSION_COOKIE } from "./cookies.ts";
import type { PageContext } from "./layout.ts";
import { refusalPage } from "./refusals.ts";

/** Who is signed in, for a dashboard route: the user, the session, the mode shown, where from. */
export type DashboardContext = {
  user: DashboardUserRow;
  session: DashboardSessionRow;
  merchantId: string;
  mode: Mode;
  ip: string | null;
  userAgent: string | null;
  page: PageContext;
};

/**
 * `read`: any signed-in user. `watch`: the same, for a page following changes by itself (a
 * stream): it does not keep an unattended session alive. `self`: a change to one's own session (sign-out, the mode shown):
 * CSRF token and same-origin Origin, any role. `write`: the same, and not a viewer. `owner`: owners only.
 */
export type DashboardAccess = "read" | "watch" | "self" | "write" | "owner";

const sameToken = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * Whether a state-changing request comes from the dashboard's own pages: its Origin is this
 * service's (the one it was reached at, or PUBLIC_BASE_URL's). Browsers send Origin on every
 * POST; a request without one is refused rather than trusted.
 */
export function sameOrigin(request: Request, publicBaseUrl: string): boolean {
  const origin = request.headers.get("origin");
  if (!origin || origin === "null") return false;
  return origin === new URL(request.url).origin || origin === new URL(publicBaseUrl).origin;
}

/**
 * The dashboard's one gate, as a route option (`{ dashboard: "read" }`). A GET with no live
 * session is sent to the sign-in page; anything else without one is a 401. Writes also need
 * the session's CSRF token (form field `csrf` or header `X-CSRF-Token`), a same-origin
 * `Origin`, and a role that may change things: the server decides, not the page.
 */
export const dashboardGuard = (deps: ApiDeps, assets: string) => {
  const { config, db } = deps;
  const refused = new WeakMap<Request, Response>();

  async function establish(request: Request, body: unknown, server: Parameters<typeof clientIpOf>[1], access: DashboardAccess): Promise<DashboardContext | Response> {
    const refuse = (status: number, message: string) => refusalPage(assets, status, message);
    const writing = request.method !== "GET" && request.method !== "HEAD";
    if (writing && !sameOrigin(request, config.http.publicBaseUrl)) return refuse(403, "This request did not come from the dashboard's own pages (cross-site requests are refused).");
    const token = cookiesOf(request)[SESSION_COOKIE];
    // htmx's own refresh of an open page (every 5 s) is not the person acting: it must not keep an unattended session alive.
    const refresh = !writing && ((request.headers.get("hx-request") === "true" && request.headers.has("hx-trigger")) || access === "watch");
    const live = token ? await liveSession(db, dashboardTokenHash(token), config.dashboard, !refresh) : undefined;
    if (!live) {
      if (!writing) {
        const here = new URL(request.url);
        const signIn = `/dashboard/sign-in?next=${encodeURIComponent(here.pathname + here.search)}`;
        // A page refreshing itself (htmx) is sent to sign in as a whole page, not swapped into a part of one.
        if (request.headers.get("hx-request") === "true") return new Response(null, { status: 401, headers: { "HX-Redirect": signIn, "Cache-Control": "no-store" } });
        return new Response(null, { status: 303, headers: { Location: signIn, "Cache-Control": "no-store" } });
      }
      return refuse(401, "Your session has ended: sign in again.");
    }
    if (writing) {
      const given = (body && typeof body === "object" ? (body as Record<string, unknown>).csrf : undefined) ?? request.headers.get("x-csrf-token");
      if (typeof given !== "string" || !sameToken(given, live.session.csrfToken)) return refuse(403, "The form was out of date or not the dashboard's (CSRF token missing or wrong): reload the page and try again.");
      if (access !== "self" && !mayChange(live.user.role)) return refuse(403, "Your role (viewer) may look but not change anything.");
    }
    if (access === "owner" && live.user.role !== "owner") return refuse(403, "Only an owner of this account may do this.");
    const merchant = await findMerchant(db, live.user.merchantId);
    const mode = modeOf(request, config.appEnv === "production");
    return {
      ...live,
      merchantId: live.user.merchantId,
      mode,
      ip: clientIpOf(request, server, config.rateLimits.clientIpHeader),
      userAgent: request.headers.get("user-agent"),
      page: { email: live.user.email, role: live.user.role, merchantName: merchant?.name ?? "", mode, csrfToken: live.session.csrfToken, assets },
    };
  }

  return new Elysia({ name: "dashboard-guard" }).macro({
    dashboard: (access: DashboardAccess) => ({
      // Elysia runs `resolve` before `beforeHandle`: the refusal found here is answered there.
      async resolve({ request, body, server }) {
        const found = await establish(request, body, server, access);
        if (found instanceof Response) {
          refused.set(request, found);
          return { dash: undefined as unknown as DashboardContext };
        }
        return { dash: found };
      },
      beforeHandle({ request }) {
        return refused.get(request);
      },
    }),
  });
};

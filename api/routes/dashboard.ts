import { Elysia, t } from "elysia";
import { checkoutHeaders, SVG_CSP } from "../checkout/securityHeaders.ts";
import { loadDashboardAssets } from "../dashboard/dashboardAssets.ts";
import { dashboardAccountRoutes } from "../dashboard/routes/account.ts";
import { dashboardAuditRoutes } from "../dashboard/routes/audit.ts";
import { dashboardKeyRoutes } from "../dashboard/routes/keys.ts";
import { dashboardOverviewRoutes } from "../dashboard/routes/overview.ts";
import { dashboardOwnAccountRoutes } from "../dashboard/routes/ownAccount.ts";
import { dashboardPaymentActionRoutes } from "../dashboard/routes/paymentActions.ts";
import { dashboardPaymentRoutes } from "../dashboard/routes/payments.ts";
import { dashboardRefundRoutes } from "../dashboard/routes/refunds.ts";
import { dashboardSettingsRoutes } from "../dashboard/routes/settings.ts";
import { dashboardTeamRoutes } from "../dashboard/routes/team.ts";
import { dashboardWalletRoutes } from "../dashboard/routes/wallets.ts";
import { dashboardWebhookRoutes } from "../dashboard/routes/webhooks.ts";
import { seeOther } from "../dashboard/respond.ts";
import { createSignInThrottle } from "../dashboard/signInThrottle.ts";
import type { ApiDeps } from "../deps.ts";

/**
 * The merchant dashboard, `/dashboard` on the API's own origin: server-rendered pages for a
 * merchant's team (session cookie, CSRF token, roles), its assets served from here.
 * See docs/dashboard.md.
 */
export const dashboardRoutes = (deps: ApiDeps) => {
  const assets = loadDashboardAssets();
  const throttle = createSignInThrottle({
    redis: deps.redis,
    prefix: deps.config.redis.prefix,
    attempts: deps.config.dashboard.signInAttempts,
    lockoutSeconds: deps.config.dashboard.lockoutSeconds,
  });
  return new Elysia({ prefix: "/dashboard", detail: { hide: true } })
    .get(
      "/assets/:version/:file",
      ({ params }) => {
        const asset = assets.get(params.version, params.file);
        if (!asset) return new Response("Not found", { status: 404, headers: { ...checkoutHeaders(), "Content-Type": "text/plain; charset=utf-8" } });
        return new Response(asset.body, {
          headers: {
            ...checkoutHeaders(),
            "Content-Type": asset.type,
            "Cache-Control": "public, max-age=31536000, immutable",
            ...(asset.type.startsWith("image/svg") ? { "Content-Security-Policy": SVG_CSP } : {}),
          },
        });
      },
      { params: t.Object({ version: t.String({ maxLength: 64 }), file: t.String({ maxLength: 64 }) }) },
    )
    .get("/", () => seeOther("/dashboard/overview"))
    .use(dashboardAccountRoutes(deps, assets.base, throttle))
    .use(dashboardOverviewRoutes(deps, assets.base))
    .use(dashboardPaymentRoutes(deps, assets.base))
    .use(dashboardPaymentActionRoutes(deps, assets.base, throttle))
    .use(dashboardRefundRoutes(deps, assets.base))
    .use(dashboardKeyRoutes(deps, assets.base, throttle))
    .use(dashboardWalletRoutes(deps, assets.base, throttle))
    .use(dashboardWebhookRoutes(deps, assets.base, throttle))
    .use(dashboardSettingsRoutes(deps, assets.base))
    .use(dashboardTeamRoutes(deps, assets.base))
    .use(dashboardAuditRoutes(deps, assets.base))
    .use(dashboardOwnAccountRoutes(deps, assets.base, throttle));
};

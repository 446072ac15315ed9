import { Elysia } from "elysia";
import { recordAudit } from "../../../db/dashboardAudit.ts";
import { setTotpSecret } from "../../../db/dashboardUsers.ts";
import type { ApiDeps } from "../../deps.ts";
import { renderQrSvg } from "../../checkout/renderQr.ts";
import { dashboardGuard, type DashboardContext } from "../guard.ts";
import { html, raw } from "../html.ts";
import { csrfField, page } from "../layout.ts";
import { credentialsMatch, newTotpSecret, totpStep, totpUri } from "../passwords.ts";
import { htmlPage, seeOther } from "../respond.ts";
import type { SignInThrottle } from "../signInThrottle.ts";

const field = (body: unknown, name: string): string => {
  const value = body && typeof body === "object" ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" ? value : "";
};

/**
 * The signed-in user's own account: two-step sign-in (TOTP) on or off, and signing out
 * everywhere. Turning TOTP on shows a new secret (QR code and text) and takes effect only once
 * a code from the app and the password confirm it; the secret travels in the form, so nothing
 * half-enrolled is stored. Any role may do this to its own account.
 */
export const dashboardOwnAccountRoutes = (deps: ApiDeps, assets: string, throttle: SignInThrottle) => {
  const { db } = deps;

  async function accountPage(dash: DashboardContext, options: { status?: number; problem?: string; secret?: string; notice?: string } = {}) {
    const on = dash.user.totpSecret !== null;
    const secret = options.secret ?? newTotpSecret();
    const problem = options.problem ? html`<p role="alert" class="problem">${options.problem}</p>` : null;
    const enrol = html`<p>Two-step sign-in is <strong>off</strong>. Scan this code with an authenticator app (or type the key), then confirm with a code from the app.</p>
<figure>${raw(await renderQrSvg(totpUri(secret, dash.user.email)))}<figcaption>Key: <code>${secret}</code></figcaption></figure>
${problem}
<form method="post" action="/dashboard/account/totp/enable" class="stack">
  ${csrfField(dash.page.csrfToken)}<input type="hidden" name="secret" value="${secret}">
  <label for="code">Code from the app</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="8">
  <label for="password">Your password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Turn on two-step sign-in</button>
</form>`;
    const disable = html`<p>Two-step sign-in is <strong>on</strong>: signing in and dangerous changes ask for a code from your app.</p>
${problem}
<form method="post" action="/dashboard/account/totp/disable" class="stack">
  ${csrfField(dash.page.csrfToken)}
  <label for="code">Code from the app</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required maxlength="8">
  <label for="password">Your password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit" class="danger">Turn off two-step sign-in</button>
</form>`;
    const body = html`${options.notice ? html`<p role="status" class="notice">${options.notice}</p>` : null}
<h2>Two-step sign-in</h2>
${on ? disable : enrol}
<h2>Sessions</h2>
<form method="post" action="/dashboard/sign-out-everywhere">${csrfField(dash.page.csrfToken)}<button type="submit" class="secondary">Sign out everywhere</button></form>`;
    return htmlPage(page(dash.page, { title: "Your account", active: "account", body }), { status: options.status ?? 200 });
  }

  /** The password (checked against the lockout), or a page saying what was wrong. */
  async function confirmed(dash: DashboardContext, body: unknown, code: string, secret?: string) {
    const lockedFor = await throttle.lockedFor(dash.user.email, dash.ip);
    if (lockedFor > 0) return accountPage(dash, { status: 429, secret, problem: `Too many wrong passwords: try again in ${Math.ceil(lockedFor / 60)} minute(s).` });
    if (!(await credentialsMatch(db, dash.user, field(body, "password"), code))) {
      await throttle.failed(dash.user.email, dash.ip);
      return accountPage(dash, { status: 403, secret, problem: "password: that is not your password (or the code is wrong). Nothing changed." });
    }
    return null;
  }

  return new Elysia()
    .use(dashboardGuard(deps, assets))
    .get("/account", ({ dash, query }) => accountPage(dash, { notice: query.done === "on" ? "Two-step sign-in is on." : query.done === "off" ? "Two-step sign-in is off." : undefined }), {
      dashboard: "read",
    })
    .post(
      "/account/totp/enable",
      async ({ dash, body }) => {
        if (dash.user.totpSecret) return seeOther("/dashboard/account");
        const secret = field(body, "secret");
        const code = field(body, "code");
        if (!/^[A-Z2-7]{32}$/.test(secret)) return accountPage(dash, { status: 400, problem: "secret: not one this page made; start again." });
        const step = totpStep(secret, code);
        if (step === null) return accountPage(dash, { status: 400, secret, problem: "code: not the app's current code for this key. Nothing changed." });
        const refused = await confirmed(dash, body, "", secret);
        if (refused) return refused;
        // The code that turned it on is used: it cannot sign in too.
        await setTotpSecret(db, dash.user.id, secret, step);
        await recordAudit(db, { merchantId: dash.merchantId, userId: dash.user.id, action: "totp.enabled", ip: dash.ip, userAgent: dash.userAgent });
        return seeOther("/dashboard/account?done=on");
      },
      { dashboard: "self" },
    )
    .post(
      "/account/totp/disable",
      async ({ dash, body }) => {
        if (!dash.user.totpSecret) return seeOther("/dashboard/account");
        const refused = await confirmed(dash, body, field(body, "code"));
        if (refused) return refused;
        await setTotpSecret(db, dash.user.id, null);
        await recordAudit(db, { merchantId: dash.merchantId, userId: dash.user.id, action: "totp.disabled", ip: dash.ip, userAgent: dash.userAgent });
        return seeOther("/dashboard/account?done=off");
      },
      { dashboard: "self" },
    );
};

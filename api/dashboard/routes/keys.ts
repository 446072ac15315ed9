import { Elysia } from "elysia";
import { listCredentials, rotateCredential } from "../../../db/credentials.ts";
import { keyDisplayPrefix } from "../../../domain/credentials.ts";
import type { ApiDeps } from "../../deps.ts";
import { changeAnnounced } from "../announceChange.ts";
import { dashboardGuard, type DashboardContext } from "../guard.ts";
import { html, type Html } from "../html.ts";
import { csrfField, page } from "../layout.ts";
import { credentialsMatch } from "../passwords.ts";
import { htmlPage } from "../respond.ts";
import type { SignInThrottle } from "../signInThrottle.ts";

const field = (body: unknown, name: string): string => {
  const value = body && typeof body === "object" ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" ? value : "";
};

/**
 * The account's API keys: what is active (by prefix: only hashes are stored), and rotation,
 * which issues a new key (its secret shown once, on the answer to the rotation only) and
 * revokes the old at once. Rotating asks for the password again (and the TOTP code when on)
 * and is written to the audit log.
 */
export const dashboardKeyRoutes = (deps: ApiDeps, assets: string, throttle: SignInThrottle) => {
  const { db } = deps;

  async function keysPage(dash: DashboardContext, options: { status?: number; problem?: string; issued?: Html } = {}) {
    const rows = (await listCredentials(db, dash.merchantId)).filter((c) => c.mode === dash.mode && !c.revokedAt);
    const body = html`${options.issued ?? null}
<table>
<caption class="hint">Active ${dash.mode} keys</caption>
<thead><tr><th scope="col">Kind</th><th scope="col">Key starts with</th><th scope="col">Created (UTC)</th></tr></thead>
<tbody>${rows.map((c) => html`<tr><td>${c.kind === "public" ? "Public key" : "API key + secret"}</td><td><code>${c.keyPrefix}</code></td><td>${c.createdAt.toISOString().replace("T", " ").slice(0, 19)}</td></tr>`)}</tbody>
</table>
<h2>Rotate a key</h2>
<p>A new key replaces every active one of its kind in ${dash.mode} mode at once: servers still sending the old one get 401 from then on. The new secret is shown once.</p>
${options.problem ? html`<p role="alert" class="problem" id="rotate-problem">${options.problem}</p>` : null}
<form method="post" action="/dashboard/keys/rotate" class="stack">
  ${csrfField(dash.page.csrfToken)}
  <fieldset><legend>Which key</legend>
    <input type="radio" id="kind-secret" name="kind" value="secret" checked> <label for="kind-secret">API key + secret</label>
    <input type="radio" id="kind-public" name="kind" value="public"> <label for="kind-public">Public key</label>
  </fieldset>
  <label for="password">Your password (to confirm it is you)</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <label for="totp">Authentication code <span class="hint">(if two-step sign-in is on)</span></label>
  <input id="totp" name="totp" inputmode="numeric" autocomplete="one-time-code" maxlength="8">
  <button type="submit" class="danger">Rotate</button>
</form>`;
    return htmlPage(page(dash.page, { title: "API keys", active: "keys", body }), { status: options.status ?? 200 });
  }

  return new Elysia()
    .use(dashboardGuard(deps, assets))
    .get("/keys", ({ dash }) => keysPage(dash), { dashboard: "read" })
    .post(
      "/keys/rotate",
      async ({ dash, body }) => {
        const kind = field(body, "kind");
        if (kind !== "secret" && kind !== "public") return keysPage(dash, { status: 400, problem: "kind: secret or public." });
        const lockedFor = await throttle.lockedFor(dash.user.email, dash.ip);
        if (lockedFor > 0) return keysPage(dash, { status: 429, problem: `Too many wrong passwords: try again in ${Math.ceil(lockedFor / 60)} minute(s).` });
        if (!(await credentialsMatch(db, dash.user, field(body, "password"), field(body, "totp")))) {
          await throttle.failed(dash.user.email, dash.ip);
          return keysPage(dash, { status: 403, problem: "password: that is not your password (or the authentication code is wrong). Nothing was rotated." });
        }
        // Rotation revokes the old key of its kind: one change, announced once.
        const issued = (await changeAnnounced(
          db,
          dash,
          (tx) => rotateCredential(tx, dash.merchantId, kind, dash.mode),
          (made) => ({ action: "api_key.rotated", details: { kind, mode: dash.mode, key: keyDisplayPrefix(made.key) }, modes: [dash.mode] }),
        ))!;
        const shown = html`<section class="secret" aria-labelledby="new-key"><h2 id="new-key">Your new ${kind === "secret" ? "API key and secret" : "public key"}</h2>
<p>${kind === "secret" ? "API key" : "Public key"}: <code id="new-key-value">${issued.key}</code></p>
${issued.secret ? html`<p>API secret: <code id="new-secret-value">${issued.secret}</code></p>` : null}
<p><strong>Copy it now: it is shown only this once and stored only as a hash.</strong></p></section>`;
        return keysPage(dash, { issued: shown });
      },
      { dashboard: "write" },
    );
};

import { Elysia } from "elysia";
import { credentialsRevokedHere, listCredentials, revokeCredentials, rotateCredential } from "../../../db/credentials.ts";
import { keyDisplayPrefix, type CredentialKind } from "../../../domain/credentials.ts";
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

/** What the revoke form's `kind` stands for. */
const REVOKE_KINDS: Record<string, readonly CredentialKind[]> = { all: ["secret", "public"], secret: ["secret"], public: ["public"] };

/**
 * The account's API keys: what is active (by prefix: only hashes are stored), rotation, which
 * issues a new key (its secret shown once, on the answer to the rotation only) and revokes the
 * old at once, and revocation (owners only), which stops keys with nothing in their place; with
 * none active, rotation issues a first key. Both ask for the password again (and the TOTP code
 * when on) and are written to the audit log and announced as `account.changed`.
 */
export const dashboardKeyRoutes = (deps: ApiDeps, assets: string, throttle: SignInThrottle) => {
  const { db } = deps;

  async function keysPage(dash: DashboardContext, options: { status?: number; problem?: string; revokeProblem?: string; issued?: Html } = {}) {
    const rows = (await listCredentials(db, dash.merchantId)).filter((c) => c.mode === dash.mode && !c.revokedAt);
    const body = html`${options.issued ?? null}
<table>
<caption class="hint">Active ${dash.mode} keys</caption>
<thead><tr><th scope="col">Kind</th><th scope="col">Key starts with</th><th scope="col">Created (UTC)</th></tr></thead>
<tbody>${rows.map((c) => html`<tr><td>${c.kind === "public" ? "Public key" : "API key + secret"}</td><td><code>${c.keyPrefix}</code></td><td>${c.createdAt.toISOString().replace("T", " ").slice(0, 19)}</td></tr>`)}</tbody>
</table>
<h2 id="rotate">${rows.length === 0 ? "Issue new keys" : "Rotate or issue a key"}</h2>
<p>A new key replaces every active one of its kind in ${dash.mode} mode at once: servers still sending the old one get 401 from then on. With none of its kind active, it is simply issued. The new secret is shown once.</p>
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
  <button type="submit" class="danger">${rows.length === 0 ? "Issue" : "Rotate"}</button>
</form>
${dash.user.role === "owner" ? revokeForm(dash, options.revokeProblem) : null}`;
    return htmlPage(page(dash.page, { title: "API keys", active: "keys", body }), { status: options.status ?? 200 });
  }

  /** Password (and TOTP when on) re-entered, within the sign-in throttle: a refusal's text, or null. */
  async function confirmed(dash: DashboardContext, body: unknown, nothing: string): Promise<{ status: number; problem: string } | null> {
    const lockedFor = await throttle.lockedFor(dash.user.email, dash.ip);
    if (lockedFor > 0) return { status: 429, problem: `Too many wrong passwords: try again in ${Math.ceil(lockedFor / 60)} minute(s).` };
    if (await credentialsMatch(db, dash.user, field(body, "password"), field(body, "totp"))) return null;
    await throttle.failed(dash.user.email, dash.ip);
    return { status: 403, problem: `password: that is not your password (or the authentication code is wrong). ${nothing}` };
  }

  return new Elysia()
    .use(dashboardGuard(deps, assets))
    .get("/keys", ({ dash }) => keysPage(dash), { dashboard: "read" })
    .post(
      "/keys/rotate",
      async ({ dash, body }) => {
        const kind = field(body, "kind");
        if (kind !== "secret" && kind !== "public") return keysPage(dash, { status: 400, problem: "kind: secret or public." });
        const refused = await confirmed(dash, body, "Nothing was rotated.");
        if (refused) return keysPage(dash, refused);
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
    )
    .post(
      "/keys/revoke",
      async ({ dash, body }) => {
        const kinds = REVOKE_KINDS[field(body, "kind")];
        if (!kinds) return keysPage(dash, { status: 400, revokeProblem: "kind: all, secret or public." });
        const refused = await confirmed(dash, body, "Nothing was revoked.");
        if (refused) return keysPage(dash, { status: refused.status, revokeProblem: refused.problem });
        const revoked = await changeAnnounced(
          db,
          dash,
          async (tx) => {
            const rows = await revokeCredentials(tx, dash.merchantId, dash.mode, kinds);
            return rows.length > 0 ? rows : undefined;
          },
          (rows) => ({ action: "api_key.revoked", details: { mode: dash.mode, keys: rows.map((r) => ({ kind: r.kind, key: r.keyPrefix })) }, modes: [dash.mode] }),
        );
        if (!revoked) return keysPage(dash, { status: 409, revokeProblem: `kind: no active ${dash.mode} key of that kind to revoke. Nothing was revoked.` });
        // After the commit: this process's cached lookups go now, the others' on the NOTIFY.
        credentialsRevokedHere();
        const notice = html`<p role="status" class="notice" id="revoked">Revoked ${revoked.map((r) => html`<code>${r.keyPrefix}</code> `)}: they answer 401 from now on. Issue new keys below; each new secret is shown once.</p>`;
        return keysPage(dash, { issued: notice });
      },
      { dashboard: "owner" },
    );
};

/** Revocation, shown to owners (the server checks the role): stops keys with nothing in their place. */
const revokeForm = (dash: DashboardContext, problem: string | undefined) => html`<h2>Revoke keys</h2>
<p>Revoking stops the ${dash.mode} keys at once, with no new key in their place: servers still sending them get 401. Use it when a key may have leaked; then issue new keys above.</p>
${problem ? html`<p role="alert" class="problem" id="revoke-problem">${problem}</p>` : null}
<form method="post" action="/dashboard/keys/revoke" class="stack">
  ${csrfField(dash.page.csrfToken)}
  <fieldset><legend>Which keys</legend>
    <input type="radio" id="revoke-all" name="kind" value="all" checked> <label for="revoke-all">Revoke all ${dash.mode} keys</label>
    <input type="radio" id="revoke-secret" name="kind" value="secret"> <label for="revoke-secret">Revoke the API key + secret</label>
    <input type="radio" id="revoke-public" name="kind" value="public"> <label for="revoke-public">Revoke the public key</label>
  </fieldset>
  <label for="revoke-password">Your password (to confirm the revocation)</label>
  <input id="revoke-password" name="password" type="password" autocomplete="current-password" required>
  <label for="revoke-totp">Revocation: authentication code <span class="hint">(if two-step sign-in is on)</span></label>
  <input id="revoke-totp" name="totp" inputmode="numeric" autocomplete="one-time-code" maxlength="8">
  <button type="submit" class="danger">Revoke</button>
</form>`;

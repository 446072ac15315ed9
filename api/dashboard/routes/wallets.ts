import { Elysia } from "elysia";
import { setSettlementWallet, settlementWalletsByNetwork } from "../../../db/settlementWallets.ts";
import { explorerAddressUrl } from "../../../domain/explorerAddressUrl.ts";
import type { ApiDeps } from "../../deps.ts";
import { checkSettlementWallet } from "../../services/checkSettlementWallet.ts";
import { changeAnnounced } from "../announceChange.ts";
import { dashboardGuard, type DashboardContext } from "../guard.ts";
import { html } from "../html.ts";
import { csrfField, page } from "../layout.ts";
import { credentialsMatch } from "../passwords.ts";
import { htmlPage, seeOther } from "../respond.ts";
import type { SignInThrottle } from "../signInThrottle.ts";

const field = (body: unknown, name: string): string => {
  const value = body && typeof body === "object" ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" ? value : "";
};

/**
 * Settlement wallets, per network of the mode shown: where sweeps and settlements send the
 * merchant's money. Changing one is for owners only, asks for the password again (and the TOTP
 * code when on), runs the operator CLI's checks (`checkSettlementWallet`), and is audited with
 * the old and new address.
 */
export const dashboardWalletRoutes = (deps: ApiDeps, assets: string, throttle: SignInThrottle) => {
  const { config, db } = deps;
  const networksOf = (dash: DashboardContext) => config.networks.filter((n) => n.isTestnet === (dash.mode === "test"));

  async function walletsPage(dash: DashboardContext, options: { status?: number; problem?: string; notice?: string; network?: string; address?: string } = {}) {
    const wallets = await settlementWalletsByNetwork(db, dash.merchantId);
    const networks = networksOf(dash);
    const rows = networks.map((n) => {
      const address = wallets.get(n.id);
      const link = address ? explorerAddressUrl(n.explorerUrl, address) : null;
      return html`<tr><td>${n.name}</td><td>${address ? (link ? html`<a class="mono" href="${link}" rel="noopener noreferrer">${address}</a>` : html`<code>${address}</code>`) : html`<span class="hint">not set: payments on this network cannot be created</span>`}</td></tr>`;
    });
    const owner = dash.user.role === "owner";
    const form = html`<h2>Change a wallet</h2>
<p>Money already swept stays where it went; later sweeps and settlements go to the new address.</p>
${options.problem ? html`<p role="alert" class="problem">${options.problem}</p>` : null}
<form method="post" action="/dashboard/wallets" class="stack">
  ${csrfField(dash.page.csrfToken)}
  <label for="network">Network</label>
  <select id="network" name="network">${networks.map((n) => html`<option value="${n.shortName}"${n.shortName === options.network ? html` selected` : null}>${n.name}</option>`)}</select>
  <label for="address">Wallet address</label>
  <input id="address" name="address" required maxlength="100" class="mono" value="${options.address ?? ""}">
  <label for="password">Your password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
  <label for="totp">Authentication code <span class="hint">(if two-step sign-in is on)</span></label>
  <input id="totp" name="totp" inputmode="numeric" autocomplete="one-time-code" maxlength="8">
  <button type="submit" class="danger">Change wallet</button>
</form>`;
    const body = html`${options.notice ? html`<p role="status" class="notice">${options.notice}</p>` : null}
<table><caption class="hint">${dash.mode} networks</caption><thead><tr><th scope="col">Network</th><th scope="col">Wallet</th></tr></thead><tbody>${rows}</tbody></table>
${owner ? form : html`<p>Only an owner may change a settlement wallet.</p>`}`;
    return htmlPage(page(dash.page, { title: "Settlement wallets", active: "wallets", body }), { status: options.status ?? 200 });
  }

  return new Elysia()
    .use(dashboardGuard(deps, assets))
    .get("/wallets", ({ dash, query }) => walletsPage(dash, { notice: query.done === "changed" ? "Settlement wallet changed." : undefined }), { dashboard: "read" })
    .post(
      "/wallets",
      async ({ dash, body }) => {
        const shortName = field(body, "network");
        const given = field(body, "address").trim().slice(0, 200);
        const again = (status: number, problem: string) => walletsPage(dash, { status, problem, network: shortName, address: given });
        const network = networksOf(dash).find((n) => n.shortName === shortName);
        if (!network) return again(400, `network: one of ${networksOf(dash).map((n) => n.shortName).join(", ")}`);
        const lockedFor = await throttle.lockedFor(dash.user.email, dash.ip);
        if (lockedFor > 0) return again(429, `Too many wrong passwords: try again in ${Math.ceil(lockedFor / 60)} minute(s).`);
        if (!(await credentialsMatch(dash.user, field(body, "password"), field(body, "totp")))) {
          await throttle.failed(dash.user.email, dash.ip);
          return again(403, "password: that is not your password (or the authentication code is wrong). Nothing changed.");
        }
        const checked = await checkSettlementWallet(network, given).catch(() => null);
        if (!checked) return again(503, `${network.name} could not be read to check the address: try again shortly. Nothing changed.`);
        if ("refused" in checked) return again(400, `address: ${checked.refused}`);
        const before = (await settlementWalletsByNetwork(db, dash.merchantId)).get(network.id) ?? null;
        await changeAnnounced(
          db,
          dash,
          (tx) => setSettlementWallet(tx, dash.merchantId, network.id, checked.address).then(() => true),
          () => ({ action: "settlement_wallet.changed", details: { network: network.shortName, from: before, to: checked.address }, modes: [dash.mode] }),
        );
        return seeOther("/dashboard/wallets?done=changed");
      },
      { dashboard: "owner" },
    );
};

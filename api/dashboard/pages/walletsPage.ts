import type { ScheduledWallet } from "../../../db/settlementWallets.ts";
import { explorerAddressUrl } from "../../../domain/explorerAddressUrl.ts";
import type { Network } from "../../../config/types.ts";
import { html } from "../html.ts";
import { csrfField, page, type PageContext } from "../layout.ts";

/** The delays (hours) a merchant may choose for live wallet changes. */
export const WALLET_DELAYS = [0, 24, 48, 72] as const;

const when = (d: Date) => `${d.toISOString().replace("T", " ").slice(0, 16)} UTC`;

const reauthFields = (id: string) => html`<label for="password-${id}">Your password</label><input id="password-${id}" name="password" type="password" autocomplete="current-password" required>
<label for="totp-${id}">Authentication code <span class="hint">(if two-step sign-in is on)</span></label>
<input id="totp-${id}" name="totp" inputmode="numeric" autocomplete="one-time-code" maxlength="8">`;

export type WalletsPageOptions = {
  networks: Network[];
  wallets: Map<string, string>;
  scheduled: Map<string, ScheduledWallet>;
  delayHours: number;
  owner: boolean;
  problem?: string;
  notice?: string;
  network?: string;
  address?: string;
};

/** Settlement wallets per network of the mode shown, delayed changes waiting (with Cancel), and the owner's forms. */
export function walletsPage(ctx: PageContext, o: WalletsPageOptions): string {
  const addressCell = (n: Network, address: string) => {
    const link = explorerAddressUrl(n.explorerUrl, address);
    return link ? html`<a class="mono" href="${link}" rel="noopener noreferrer">${address}</a>` : html`<code>${address}</code>`;
  };
  const rows = o.networks.map((n) => {
    const address = o.wallets.get(n.id);
    const waiting = o.scheduled.get(n.id);
    const cancel = o.owner
      ? html` <form method="post" action="/dashboard/wallets/${n.shortName}/cancel" class="inline">${csrfField(ctx.csrfToken)}<button type="submit" class="secondary" aria-label="${`Cancel the change of the ${n.name} wallet`}">Cancel</button></form>`
      : null;
    return html`<tr><td>${n.name}</td><td>${address ? addressCell(n, address) : html`<span class="hint">not set: payments on this network cannot be created</span>`}</td>
<td>${waiting ? html`<span class="pending-change">${addressCell(n, waiting.address)} from ${when(waiting.effectiveAt)}</span>${cancel}` : "—"}</td></tr>`;
  });
  const live = ctx.mode === "live";
  const delayNote = live && o.delayHours > 0 ? `A change of a wallet already set takes effect ${o.delayHours} hours after it is made; until then it can be cancelled here.` : "A change takes effect at once.";
  const change = html`<h2>Change a wallet</h2>
<p>Money already swept stays where it went; payments created after the change settle to the new address. ${delayNote}</p>
${o.problem ? html`<p role="alert" class="problem">${o.problem}</p>` : null}
<form method="post" action="/dashboard/wallets" class="stack">
  ${csrfField(ctx.csrfToken)}
  <label for="network">Network</label>
  <select id="network" name="network">${o.networks.map((n) => html`<option value="${n.shortName}"${n.shortName === o.network ? html` selected` : null}>${n.name}</option>`)}</select>
  <label for="address">Wallet address</label>
  <input id="address" name="address" required maxlength="100" class="mono" value="${o.address ?? ""}">
  ${reauthFields("change")}
  <button type="submit" class="danger">Change wallet</button>
</form>`;
  const delay = html`<h2>Delay for live wallet changes</h2>
<p>A stolen session and password could point your money elsewhere: with a delay, a live change waits, you are told by webhook (<code>account.changed</code>), and any owner can cancel it.</p>
<form method="post" action="/dashboard/wallets/delay" class="stack">
  ${csrfField(ctx.csrfToken)}
  <label for="delay">Delay</label>
  <select id="delay" name="hours">${WALLET_DELAYS.map((h) => html`<option value="${String(h)}"${h === o.delayHours ? html` selected` : null}>${h === 0 ? "none" : `${h} hours`}</option>`)}</select>
  ${reauthFields("delay")}
  <button type="submit" class="danger">Save delay</button>
</form>`;
  const body = html`${o.notice ? html`<p role="status" class="notice">${o.notice}</p>` : null}
<table><caption class="hint">${ctx.mode} networks</caption><thead><tr><th scope="col">Network</th><th scope="col">Wallet</th><th scope="col">Change waiting</th></tr></thead><tbody>${rows}</tbody></table>
${o.owner ? html`${change}${delay}` : html`<p>Only an owner may change a settlement wallet.</p>`}
<p class="hint">Live wallet changes wait ${o.delayHours === 0 ? "no time" : `${o.delayHours} hours`}.</p>`;
  return page(ctx, { title: "Settlement wallets", active: "wallets", body });
}

import type { AgentPolicyRow } from "../../../db/agentPolicies.ts";
import type { UnknownAgents } from "../../../db/agentSettings.ts";
import { html, type Html } from "../html.ts";
import { csrfField, page, type PageContext } from "../layout.ts";

export type SettingsView = {
  settlementCurrency: string;
  returnOrigins: string[];
  unknownAgents: UnknownAgents;
  policies: AgentPolicyRow[];
  canChange: boolean;
  problem?: string;
  notice?: string;
};

const list = (values: string[] | null) => (values === null ? "any" : values.length === 0 ? "none" : values.join(", "));

function policiesTable(ctx: PageContext, v: SettingsView): Html {
  if (v.policies.length === 0) return html`<p>No agent policies in ${ctx.mode} mode.</p>`;
  return html`<table><thead><tr><th scope="col">Agent</th><th scope="col">Per payment (USD)</th><th scope="col">Per day (USD)</th><th scope="col">Networks</th><th scope="col">Tokens</th><th scope="col">Expires</th><th scope="col">State</th>${
    v.canChange ? html`<th scope="col">Action</th>` : null
  }</tr></thead><tbody>${v.policies.map(
    (p) => html`<tr><td><code>${p.agentId}</code></td><td class="num">${p.maxPerPayment ?? "no limit"}</td><td class="num">${p.dailyLimit ?? "no limit"}</td><td>${list(p.allowedNetworks)}</td><td>${list(p.allowedTokens)}</td>
<td>${p.expiresAt?.toISOString() ?? "never"}</td><td>${p.active ? "active" : "deactivated"}</td>${
      v.canChange && p.active
        ? html`<td><form method="post" action="/dashboard/settings/agents/deactivate" class="inline">${csrfField(ctx.csrfToken)}<input type="hidden" name="agentId" value="${p.agentId}"><button type="submit" class="secondary" aria-label="${`Deactivate ${p.agentId}`}">Deactivate</button></form></td>`
        : v.canChange
          ? html`<td></td>`
          : null
    }</tr>`,
  )}</tbody></table>`;
}

/** Settings: the settlement currency (the account's), and of the mode shown: return origins, agents without a policy, agent policies. */
export function settingsPage(ctx: PageContext, v: SettingsView): string {
  const disabled = v.canChange ? null : html` disabled`;
  const body = html`${v.notice ? html`<p role="status" class="notice">${v.notice}</p>` : null}${v.problem ? html`<p role="alert" class="problem">${v.problem}</p>` : null}
<h2>Settlement currency</h2>
<form method="post" action="/dashboard/settings/currency" class="stack">
  ${csrfField(ctx.csrfToken)}
  <label for="settlementCurrency">Statistics and the overview are reported in it, and each new payment records its rate to it (both modes). USD, or a currency the service has an exchange rate for.</label>
  <input id="settlementCurrency" name="settlementCurrency" required maxlength="3" autocomplete="off" value="${v.settlementCurrency}"${disabled}>
  ${v.canChange ? html`<button type="submit">Save settlement currency</button>` : null}
</form>
<h2>Return origins</h2>
<form method="post" action="/dashboard/settings/return-origins" class="stack">
  ${csrfField(ctx.csrfToken)}
  <label for="origins">Where public-key payments may send the customer back (successUrl, cancelUrl): one origin a line, such as https://shop.example.com</label>
  <textarea id="origins" name="origins" rows="4" cols="50"${disabled}>${v.returnOrigins.join("\n")}</textarea>
  ${v.canChange ? html`<button type="submit">Save return origins</button>` : null}
</form>
<h2>Agents</h2>
<form method="post" action="/dashboard/settings/unknown-agents" class="stack">
  ${csrfField(ctx.csrfToken)}
  <fieldset${disabled}><legend>An agent (X-Agent-Id) without a policy</legend>
    <input type="radio" id="unknown-allow" name="unknownAgents" value="allow"${v.unknownAgents === "allow" ? html` checked` : null}> <label for="unknown-allow">may create payments, unlimited</label><br>
    <input type="radio" id="unknown-deny" name="unknownAgents" value="deny"${v.unknownAgents === "deny" ? html` checked` : null}> <label for="unknown-deny">is refused</label>
  </fieldset>
  ${v.canChange ? html`<button type="submit">Save</button>` : null}
</form>
<h3>Agent policies</h3>
${policiesTable(ctx, v)}
${
  v.canChange
    ? html`<h3>Set a policy</h3>
<form method="post" action="/dashboard/settings/agents" class="stack">
  ${csrfField(ctx.csrfToken)}
  <label for="agentId">Agent id</label><input id="agentId" name="agentId" required maxlength="200">
  <label for="maxPerPayment">Most per payment, USD <span class="hint">(empty: no limit)</span></label><input id="maxPerPayment" name="maxPerPayment" inputmode="decimal">
  <label for="dailyLimit">Most per day, USD <span class="hint">(empty: no limit)</span></label><input id="dailyLimit" name="dailyLimit" inputmode="decimal">
  <label for="allowedNetworks">Networks <span class="hint">(comma-separated short names; empty: any)</span></label><input id="allowedNetworks" name="allowedNetworks">
  <label for="allowedTokens">Tokens <span class="hint">(comma-separated; empty: any)</span></label><input id="allowedTokens" name="allowedTokens">
  <label for="expiresAt">Expires <span class="hint">(ISO date-time; empty: never)</span></label><input id="expiresAt" name="expiresAt">
  <button type="submit">Save policy</button>
</form>`
    : null
}`;
  return page(ctx, { title: "Settings", active: "settings", body });
}

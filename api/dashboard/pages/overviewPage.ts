import type { Config } from "../../../config/index.ts";
import { jsonForScript } from "../../checkout/pageShell.ts";
import { html, raw, type Html } from "../html.ts";
import { page, type PageContext } from "../layout.ts";

export type Overview = {
  from: string;
  to: string;
  currency: string;
  /** Every day of the range, oldest first, with its completed value (a decimal string, 2 places). */
  days: Array<{ day: string; volume: string }>;
  total: string;
  byStatus: Array<{ key: string; count: number }>;
  byNetwork: Array<{ key: string; count: number }>;
  byToken: Array<{ key: string; count: number }>;
};

/** Counts as a table whose last column draws each as a bar (SVG attributes, no inline style: the CSP allows none). */
function countChart(caption: string, heading: string, rows: Array<{ label: string; count: number }>): Html {
  if (rows.length === 0) return html`<h2>${caption}</h2><p>No payments in this range.</p>`;
  const most = Math.max(...rows.map((r) => r.count));
  return html`<h2>${caption}</h2><table class="counts">
<thead><tr><th scope="col">${heading}</th><th scope="col">Payments</th><th scope="col"><span class="visually-hidden">Share</span></th></tr></thead>
<tbody>${rows.map(
    (r) =>
      html`<tr><td>${r.label}</td><td class="num">${r.count}</td><td><svg width="200" height="14" aria-hidden="true" focusable="false"><rect x="0" y="1" height="12" width="${Math.max(2, Math.round((200 * r.count) / most))}" fill="#0b57d0"></rect></svg></td></tr>`,
  )}</tbody></table>`;
}

/** The overview: volume per day in the settlement currency (a uPlot chart and its table), and counts by status, network and token. */
export function overviewPage(ctx: PageContext, config: Config, o: Overview): string {
  const networkName = (id: string) => config.networks.find((n) => n.id === id)?.name ?? id;
  const body = html`<form method="get" action="/dashboard/overview" class="filters" aria-label="Range">
  <div><label for="from">From</label><input id="from" name="from" type="date" value="${o.from}"></div>
  <div><label for="to">To (inclusive)</label><input id="to" name="to" type="date" value="${o.to}"></div>
  <div><button type="submit">Show</button></div>
</form>
<p>Completed from ${o.from} to ${o.to} (UTC days of creation): <strong>${o.total} ${o.currency}</strong></p>
<h2>Volume per day (${o.currency})</h2>
<div id="volume-chart" role="img" aria-label="${`Completed volume per day in ${o.currency}; the figures are in the table below`}"></div>
<details><summary>Volume per day as a table</summary>
<table><thead><tr><th scope="col">Day</th><th scope="col">Completed (${o.currency})</th></tr></thead>
<tbody>${o.days.map((d) => html`<tr><td>${d.day}</td><td class="num">${d.volume}</td></tr>`)}</tbody></table>
</details>
${countChart("By status", "Status", o.byStatus.map((r) => ({ label: r.key, count: r.count })))}
${countChart("By network", "Network", o.byNetwork.map((r) => ({ label: networkName(r.key), count: r.count })))}
${countChart("By token", "Token", o.byToken.map((r) => ({ label: r.key, count: r.count })))}
<script type="application/json" id="overview-data">${raw(jsonForScript({ currency: o.currency, days: o.days }))}</script>`;
  const head = html`<link rel="stylesheet" href="${ctx.assets}/uPlot.min.css">
<script src="${ctx.assets}/uPlot.iife.min.js" defer></script>
<script src="${ctx.assets}/overview.js" defer></script>`;
  return page(ctx, { title: "Overview", active: "overview", body, head });
}

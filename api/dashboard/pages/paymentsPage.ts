import type { Config } from "../../../config/index.ts";
import type { DashboardPaymentRow } from "../../../db/dashboardPayments.ts";
import { formatAmount } from "../../../domain/amounts.ts";
import { paymentStatuses } from "../../../domain/paymentStatus.ts";
import { html, type Html } from "../html.ts";
import { page, type PageContext } from "../layout.ts";
import { paymentListHref, type PaymentQuery } from "../paymentFilters.ts";

const option = (value: string, label: string, chosen: string) => html`<option value="${value}"${value === chosen ? html` selected` : null}>${label}</option>`;

function filterForm(config: Config, echo: PaymentQuery): Html {
  const tokens = [...new Set(config.networks.flatMap((n) => n.tokens.map((t) => t.symbol)))].sort();
  return html`<form method="get" action="/dashboard/payments" class="filters" role="search" aria-label="Filter payments">
  <div><label for="q">Search</label><input id="q" name="q" value="${echo.q}" placeholder="id, orderId, address or tx hash" size="30"></div>
  <div><label for="status">Status</label><select id="status" name="status">${option("", "Any", echo.status)}${paymentStatuses.map((s) => option(s, s, echo.status))}</select></div>
  <div><label for="network">Network</label><select id="network" name="network">${option("", "Any", echo.network)}${config.networks.map((n) => option(n.shortName, n.name, echo.network))}</select></div>
  <div><label for="token">Token</label><select id="token" name="token">${option("", "Any", echo.token)}${tokens.map((t) => option(t, t, echo.token))}</select></div>
  <div><label for="agent">Agent</label><input id="agent" name="agent" value="${echo.agent}" size="12"></div>
  <div><label for="from">From</label><input id="from" name="from" type="date" value="${echo.from}"></div>
  <div><label for="to">To (inclusive)</label><input id="to" name="to" type="date" value="${echo.to}"></div>
  <div><button type="submit">Apply</button></div>
</form>`;
}

function table(config: Config, rows: DashboardPaymentRow[]): Html {
  if (rows.length === 0) return html`<p>No payments match.</p>`;
  const networkName = (id: string) => config.networks.find((n) => n.id === id)?.name ?? id;
  return html`<table>
<caption class="hint">Newest first</caption>
<thead><tr><th scope="col">Payment</th><th scope="col">Created (UTC)</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Received</th><th scope="col">Network</th><th scope="col">Order</th></tr></thead>
<tbody>${rows.map(
    (p) => html`<tr>
<td><a class="mono" href="/dashboard/payments/${p.id}">${p.id}</a></td>
<td>${p.createdAt.toISOString().replace("T", " ").slice(0, 19)}</td>
<td data-status="${p.status}">${p.status}</td>
<td class="num">${formatAmount(p.amount, p.tokenDecimals)} ${p.tokenSymbol}</td>
<td class="num">${formatAmount(p.amountReceived, p.tokenDecimals)}</td>
<td>${networkName(p.networkId)}</td>
<td>${p.orderId ?? ""}</td>
</tr>`,
  )}</tbody>
</table>`;
}

/**
 * The payments list: filters, search, a page of rows, paging and the CSV export. Money
 * arriving shows without a reload: `live.js` follows the stream of the open payments shown
 * (`data-stream`) and htmx fetches the table again on each change. The first page also asks
 * for itself every 30 s, for new payments and while the stream is down.
 */
export function paymentsPage(ctx: PageContext, config: Config, options: { echo: PaymentQuery; rows: DashboardPaymentRow[]; hasMore: boolean; after: string | null }): string {
  const { echo, rows, hasMore, after } = options;
  const self = paymentListHref("/dashboard/payments", echo, after ?? undefined);
  const openIds = rows.filter((p) => p.status === "pending" || p.status === "confirming").map((p) => p.id);
  const stream = openIds.length > 0 ? html` data-stream="/dashboard/payments/changes?ids=${openIds.join(",")}"` : null;
  const live = html` hx-get="${self}" hx-trigger="${after ? "payments-changed from:body" : "payments-changed from:body, every 30s"}" hx-select="#payments-table" hx-swap="outerHTML"${stream}`;
  return page(ctx, {
    title: "Payments",
    active: "payments",
    head: html`<script src="${ctx.assets}/live.js" defer></script>`,
    body: html`${filterForm(config, echo)}
<p><a href="${paymentListHref("/dashboard/payments.csv", echo)}" download>Export CSV</a> <span class="hint">(these filters, up to 10,000 rows)</span></p>
<div id="payments-table"${live}>${table(config, rows)}</div>
<nav class="pager" aria-label="Pages">
${after ? html`<a href="${paymentListHref("/dashboard/payments", echo)}">Newest</a>` : null}
${hasMore && rows.length > 0 ? html`<a href="${paymentListHref("/dashboard/payments", echo, rows.at(-1)!.id)}" rel="next">Older</a>` : null}
</nav>`,
  });
}

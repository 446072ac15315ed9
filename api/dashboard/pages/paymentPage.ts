import type { Network } from "../../../config/index.ts";
import type { PaymentRecords } from "../../../db/paymentStory.ts";
import type { PaymentRow } from "../../../db/schema/index.ts";
import { formatAmount } from "../../../domain/amounts.ts";
import { html, type Html } from "../html.ts";
import { csrfField, page, type PageContext } from "../layout.ts";
import { paymentStory, txLink } from "../paymentStory.ts";
import { awaitingRequestsTable } from "./refundRequestForms.ts";

/**
 * Cancel (a pending payment) and refund (what it owes the customer), for roles that may change
 * things; outside the part that refreshes itself, so nothing typed is swapped away.
 */
function actions(ctx: PageContext, p: PaymentRow): Html {
  const base = `/dashboard/payments/${p.id}`;
  return html`<h2>Actions</h2>
${p.status === "pending" ? html`<form method="post" action="${base}/cancel" class="inline">${csrfField(ctx.csrfToken)}<label for="cancel-reason">Reason</label> <input id="cancel-reason" name="reason" maxlength="500"> <button type="submit" class="secondary">Cancel payment</button></form>` : null}
<details><summary>Refund what this payment owes the customer</summary>
<form method="post" action="${base}/refund" class="stack">
  ${csrfField(ctx.csrfToken)}
  <label for="refund-address">To address <span class="hint">(empty: back to the address that paid)</span></label><input id="refund-address" name="address" maxlength="100" class="mono">
  <label for="refund-reason">Reason</label><input id="refund-reason" name="reason" maxlength="500">
  <label for="refund-password">Your password</label><input id="refund-password" name="password" type="password" autocomplete="current-password" required>
  <label for="refund-totp">Authentication code <span class="hint">(if two-step sign-in is on)</span></label><input id="refund-totp" name="totp" inputmode="numeric" autocomplete="one-time-code" maxlength="8">
  <button type="submit" class="danger">Refund</button>
</form>
</details>`;
}

/**
 * A payment's page: its facts, the refund requests awaiting a decision, and its story in time
 * order. While the payment is open, the checkout's change stream (`live.js`) makes htmx fetch
 * the live part again on each change, and it asks every 5 s besides, so a payment flips to
 * completed without a reload.
 */
export function paymentPage(ctx: PageContext, options: { payment: PaymentRow; network: Network | undefined; records: PaymentRecords; canDecide: boolean; notice?: string }): string {
  const { payment: p, network, records } = options;
  const units = (v: bigint) => `${formatAmount(v, p.tokenDecimals)} ${p.tokenSymbol}`;
  const open = p.status === "pending" || p.status === "confirming" || records.transfers.some((t) => t.status === "requested" || t.status === "broadcast");
  const self = `/dashboard/payments/${p.id}`;
  const awaiting = records.requests.filter((r) => r.status === "awaiting_approval").map((request) => ({ request, tokenSymbol: p.tokenSymbol, tokenDecimals: p.tokenDecimals }));
  return page(ctx, {
    title: `Payment ${p.id}`,
    active: "payments",
    head: html`<script src="${ctx.assets}/live.js" defer></script>`,
    body: html`${options.notice ? html`<p role="status" class="notice">${options.notice}</p>` : null}
<div id="payment-live"${
      open ? html` hx-get="${self}" hx-trigger="payment-changed from:body, every 5s" hx-select="#payment-live" hx-swap="outerHTML" data-stream="/api/v1/payments/public/${p.id}/events"` : null
    }>
<dl class="facts">
  <dt>Status</dt><dd id="payment-status" data-status="${p.status}">${p.status}</dd>
  <dt>Amount</dt><dd>${units(p.amount)}</dd>
  <dt>Received</dt><dd>${units(p.amountReceived)}</dd>
  <dt>Network</dt><dd>${network?.name ?? p.chainId}</dd>
  <dt>Receive address</dt><dd><code>${p.receiveAddress ?? p.contractAddress ?? ""}</code></dd>
  <dt>Order</dt><dd>${p.orderId ?? "—"}</dd>
  <dt>Created</dt><dd>${p.createdAt.toISOString()}</dd>
  <dt>Expires</dt><dd>${p.expiresAt.toISOString()}</dd>
  <dt>Confirmations</dt><dd>${p.confirmations} of ${network?.requiredConfirmations ?? "?"}</dd>
  <dt>Transaction</dt><dd>${p.completingTxHash ? txLink(network, p.completingTxHash) : "—"}</dd>
</dl>
<h2>Refund requests awaiting approval</h2>
${awaitingRequestsTable(awaiting, { csrfToken: ctx.csrfToken, canDecide: options.canDecide, showPayment: false })}
<h2>Story</h2>
<ol class="timeline">${paymentStory(p, network, records).map(
      (e) => html`<li><time datetime="${e.at.toISOString()}">${e.at.toISOString().replace("T", " ").slice(0, 19)} UTC</time><strong>${e.title}</strong> <span>${e.detail}</span></li>`,
    )}</ol>
</div>
${options.canDecide ? actions(ctx, p) : null}`,
  });
}

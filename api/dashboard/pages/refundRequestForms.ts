import type { RefundRequestRow } from "../../../db/refundRequests.ts";
import { formatAmount } from "../../../domain/amounts.ts";
import { html, type Html } from "../html.ts";
import { csrfField } from "../layout.ts";

/** Approve and reject buttons for a request awaiting approval (each its own form with the CSRF token). */
export function decisionForms(paymentId: string, requestId: string, csrfToken: string): Html {
  const base = `/dashboard/payments/${paymentId}/refund-requests/${requestId}`;
  return html`<form method="post" action="${base}/approve" class="inline">${csrfField(csrfToken)}<button type="submit">Approve and send</button></form>
<form method="post" action="${base}/reject" class="inline">${csrfField(csrfToken)}<button type="submit" class="secondary">Reject</button></form>`;
}

/** A payment's refund requests awaiting approval: amount, destination, reason, and (for roles that may) the decision. */
export function awaitingRequestsTable(
  rows: ReadonlyArray<{ request: RefundRequestRow; tokenSymbol: string; tokenDecimals: number }>,
  options: { csrfToken: string; canDecide: boolean; showPayment: boolean },
): Html {
  if (rows.length === 0) return html`<p>No refund requests are waiting for approval.</p>`;
  return html`<table>
<thead><tr>${options.showPayment ? html`<th scope="col">Payment</th>` : null}<th scope="col">Requested (UTC)</th><th scope="col">Amount</th><th scope="col">To</th><th scope="col">By</th><th scope="col">Reason</th>${
    options.canDecide ? html`<th scope="col">Decision</th>` : null
  }</tr></thead>
<tbody>${rows.map(
    ({ request: r, tokenSymbol, tokenDecimals }) => html`<tr>
${options.showPayment ? html`<td><a class="mono" href="/dashboard/payments/${r.paymentId}">${r.paymentId}</a></td>` : null}
<td>${r.createdAt.toISOString().replace("T", " ").slice(0, 19)}</td>
<td class="num">${formatAmount(r.amount, tokenDecimals)} ${tokenSymbol}</td>
<td><code>${r.toAddress}</code></td>
<td>${r.requestedBy}</td>
<td>${r.reason ?? ""}</td>
${options.canDecide ? html`<td>${decisionForms(r.paymentId, r.id, options.csrfToken)}</td>` : null}
</tr>`,
  )}</tbody>
</table>`;
}

import type { recentEventDeliveries } from "../../../db/recentEventDeliveries.ts";
import type { WebhookEndpointRow } from "../../../db/webhookEndpoints.ts";
import { html, type Html } from "../html.ts";
import { csrfField, page, type PageContext } from "../layout.ts";

type Log = Awaited<ReturnType<typeof recentEventDeliveries>>;

const when = (d: Date) => d.toISOString().replace("T", " ").slice(0, 19);

const passwordFields = (id: string) => html`<label for="password-${id}">Your password</label><input id="password-${id}" name="password" type="password" autocomplete="current-password" required>
<label for="totp-${id}">Authentication code <span class="hint">(if two-step sign-in is on)</span></label><input id="totp-${id}" name="totp" inputmode="numeric" autocomplete="one-time-code" maxlength="8">`;

function endpointsTable(ctx: PageContext, endpoints: WebhookEndpointRow[], canChange: boolean): Html {
  if (endpoints.length === 0) return html`<p>No endpoints in ${ctx.mode} mode: events go only to each payment's callbackUrl.</p>`;
  return html`<table><thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th>${canChange ? html`<th scope="col">Actions</th>` : null}</tr></thead><tbody>${endpoints.map(
    (e) => html`<tr><td><code>${e.url}</code>${e.description ? html`<br><span class="hint">${e.description}</span>` : null}</td><td>${e.events.join(", ")}</td>
<td>${e.disabledAt ? `disabled ${when(e.disabledAt)}: ${e.disabledReason ?? ""}` : "enabled"}</td>
${canChange ? html`<td><details><summary>Rotate secret</summary><form method="post" action="/dashboard/webhooks/${e.id}/rotate" class="stack">${csrfField(ctx.csrfToken)}${passwordFields(`rotate-${e.id}`)}<button type="submit" class="danger">Rotate</button></form></details>
<form method="post" action="/dashboard/webhooks/${e.id}/test" class="inline">${csrfField(ctx.csrfToken)}<button type="submit" class="secondary" aria-label="${`Send a test event to ${e.url}`}">Send test event</button></form>
<form method="post" action="/dashboard/webhooks/${e.id}/remove" class="inline">${csrfField(ctx.csrfToken)}<button type="submit" class="secondary" aria-label="${`Remove ${e.url}`}">Remove</button></form></td>` : null}</tr>`,
  )}</tbody></table>`;
}

function deliveryLog(ctx: PageContext, log: Log, canChange: boolean): Html {
  if (log.length === 0) return html`<p>No events yet.</p>`;
  return html`<table><thead><tr><th scope="col">Event</th><th scope="col">Payment</th><th scope="col">Deliveries</th>${canChange ? html`<th scope="col">Redeliver</th>` : null}</tr></thead><tbody>${log.map(
    ({ event, deliveries }) => html`<tr><td>${event.type}<br><span class="hint">${when(event.createdAt)}</span></td>
<td>${event.paymentId ? html`<a class="mono" href="/dashboard/payments/${event.paymentId}">${event.paymentId}</a>` : html`<span class="hint">the account</span>`}</td>
<td>${deliveries.length === 0 ? "none (no endpoint or callbackUrl took it)" : html`<ul>${deliveries.map((d) => {
      const last = d.attemptLog.at(-1);
      return html`<li>${d.url}: ${d.status}, ${d.attempts} attempt(s)${last ? html`, last ${last.statusCode === null ? `no answer (${last.error ?? "error"})` : `HTTP ${last.statusCode}`}` : null}</li>`;
    })}</ul>`}</td>
${canChange ? html`<td><form method="post" action="/dashboard/webhooks/events/${event.id}/redeliver" class="inline">${csrfField(ctx.csrfToken)}<button type="submit" class="secondary" aria-label="${`Redeliver ${event.type} of ${event.createdAt.toISOString()}`}">Redeliver</button></form></td>` : null}</tr>`,
  )}</tbody></table>`;
}

/** Webhook endpoints (add, rotate the secret, remove) and the delivery log of the latest events (redeliver). */
export function webhooksPage(ctx: PageContext, options: { endpoints: WebhookEndpointRow[]; log: Log; canChange: boolean; problem?: string; notice?: Html }): string {
  const add = html`<h2>Add an endpoint</h2>
<form method="post" action="/dashboard/webhooks" class="stack">
  ${csrfField(ctx.csrfToken)}
  <label for="url">URL</label><input id="url" name="url" type="url" required maxlength="2048">
  <label for="events">Events <span class="hint">(comma-separated, such as payment.completed; empty: all)</span></label><input id="events" name="events" maxlength="1000">
  <label for="description">Description</label><input id="description" name="description" maxlength="500">
  ${passwordFields("add")}
  <button type="submit">Add endpoint</button>
</form>`;
  return page(ctx, {
    title: "Webhooks",
    active: "webhooks",
    body: html`${options.notice ?? null}${options.problem ? html`<p role="alert" class="problem">${options.problem}</p>` : null}
<h2>Endpoints</h2>
${endpointsTable(ctx, options.endpoints, options.canChange)}
${options.canChange ? add : null}
<h2>Delivery log</h2>
<p class="hint">The latest 50 events of ${ctx.mode} mode and what became of each delivery.</p>
${deliveryLog(ctx, options.log, options.canChange)}`,
  });
}

import { Elysia } from "elysia";
import { findMerchantEvent } from "../../../db/eventFeed.ts";
import type { Db } from "../../../db/client.ts";
import { findPayment } from "../../../db/payments.ts";
import { recentEventDeliveries } from "../../../db/recentEventDeliveries.ts";
import { findWebhookEndpoint, listWebhookEndpoints, removeWebhookEndpoint, rotateWebhookEndpointSecret } from "../../../db/webhookEndpoints.ts";
import { mayChange } from "../../../domain/dashboardRole.ts";
import { AppError, NotFoundError } from "../../../domain/errors.ts";
import { uuidPattern } from "../../../domain/uuid.ts";
import type { ApiDeps } from "../../deps.ts";
import { redeliverOwnEvent } from "../../services/redeliverEvent.ts";
import { registerWebhookEndpoint } from "../../services/webhookEndpoints.ts";
import { changeAnnounced } from "../announceChange.ts";
import { dashboardGuard, type DashboardContext } from "../guard.ts";
import { html } from "../html.ts";
import { credentialsMatch } from "../passwords.ts";
import { webhooksPage } from "../pages/webhooksPage.ts";
import { pageOrRefusal } from "../refusals.ts";
import { sendTestEvent } from "../sendTestEvent.ts";
import { htmlPage, seeOther } from "../respond.ts";
import type { SignInThrottle } from "../signInThrottle.ts";

const field = (body: unknown, name: string): string => {
  const value = body && typeof body === "object" ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" ? value : "";
};

/**
 * Webhooks of the mode shown: endpoints (add and rotate a secret with the password re-entered,
 * the secret shown once; remove) and the delivery log of the latest events, each redeliverable
 * (the API's limit per hour applies), and a test event sent to an endpoint through the normal
 * delivery path. The same services as the key + secret routes.
 */
export const dashboardWebhookRoutes = (deps: ApiDeps, assets: string, throttle: SignInThrottle) => {
  const { config, db } = deps;

  async function render(dash: DashboardContext, options: { status?: number; problem?: string; notice?: ReturnType<typeof html> } = {}) {
    const [endpoints, log] = await Promise.all([listWebhookEndpoints(db, config.secrets, dash.merchantId, dash.mode), recentEventDeliveries(db, dash, 50)]);
    return htmlPage(webhooksPage(dash.page, { endpoints, log, canChange: mayChange(dash.user.role), ...options }), { status: options.status ?? 200 });
  }

  const secretShown = (url: string, secret: string) =>
    html`<section class="secret" aria-labelledby="new-secret"><h2 id="new-secret">Signing secret of ${url}</h2><p><code id="webhook-secret-value">${secret}</code></p><p><strong>Copy it now: it is shown only this once.</strong></p></section>`;

  /** Null when the password (and TOTP code) are right; else the page saying what was wrong. */
  async function reauthenticate(dash: DashboardContext, body: unknown) {
    const lockedFor = await throttle.lockedFor(dash.user.email, dash.ip);
    if (lockedFor > 0) return render(dash, { status: 429, problem: `Too many wrong passwords: try again in ${Math.ceil(lockedFor / 60)} minute(s).` });
    if (await credentialsMatch(db, dash.user, field(body, "password"), field(body, "totp"))) return null;
    await throttle.failed(dash.user.email, dash.ip);
    return render(dash, { status: 403, problem: "password: that is not your password (or the authentication code is wrong). Nothing changed." });
  }

  async function ownEndpoint(dash: DashboardContext, id: string) {
    const endpoint = uuidPattern.test(id) ? await findWebhookEndpoint(db, config.secrets, id) : undefined;
    if (!endpoint || endpoint.merchantId !== dash.merchantId || endpoint.mode !== dash.mode) throw new NotFoundError(`No webhook endpoint ${id} in this account's ${dash.mode} mode.`);
    return endpoint;
  }

  /** An endpoint change, audited and announced (`account.changed`) with the change itself. */
  const announced = <T extends { id: string; url: string }>(dash: DashboardContext, action: string, apply: (tx: Db) => Promise<T | undefined>) =>
    changeAnnounced(db, dash, apply, (e) => ({ action, details: { mode: dash.mode, endpointId: e.id, url: e.url }, modes: [dash.mode] }));

  return new Elysia()
    .use(dashboardGuard(deps, assets))
    .get("/webhooks", ({ dash }) => render(dash), { dashboard: "read" })
    .post(
      "/webhooks",
      async ({ dash, body }) => {
        const refused = await reauthenticate(dash, body);
        if (refused) return refused;
        const events = field(body, "events").split(",").map((e) => e.trim()).filter(Boolean);
        try {
          const endpoint = (await announced(dash, "webhook_endpoint.added", (tx) =>
            registerWebhookEndpoint(tx, { box: config.secrets, testTargets: config.webhooks.testTargets }, dash, {
              url: field(body, "url"),
              events: events.length > 0 ? events : undefined,
              description: field(body, "description").trim() || undefined,
            }),
          ))!;
          return render(dash, { notice: secretShown(endpoint.url, endpoint.secret) });
        } catch (error) {
          if (error instanceof AppError) return render(dash, { status: error.status, problem: error.message });
          throw error;
        }
      },
      { dashboard: "write" },
    )
    .post(
      "/webhooks/:id/rotate",
      ({ dash, params, body }) =>
        pageOrRefusal(assets, async () => {
          const endpoint = await ownEndpoint(dash, params.id);
          const refused = await reauthenticate(dash, body);
          if (refused) return refused;
          const rotated = await announced(dash, "webhook_endpoint.secret_rotated", (tx) => rotateWebhookEndpointSecret(tx, config.secrets, endpoint.id, config.webhooks.secretOverlapMs));
          if (!rotated) throw new NotFoundError(`No webhook endpoint ${endpoint.id}.`);
          return render(dash, { notice: secretShown(rotated.url, rotated.secret) });
        }),
      { dashboard: "write" },
    )
    .post(
      "/webhooks/:id/remove",
      ({ dash, params }) =>
        pageOrRefusal(assets, async () => {
          const endpoint = await ownEndpoint(dash, params.id);
          await announced(dash, "webhook_endpoint.removed", (tx) => removeWebhookEndpoint(tx, endpoint.id));
          return seeOther("/dashboard/webhooks");
        }),
      { dashboard: "write" },
    )
    .post(
      "/webhooks/:id/test",
      ({ dash, params }) =>
        pageOrRefusal(assets, async () => {
          const endpoint = await ownEndpoint(dash, params.id);
          try {
            await sendTestEvent(deps, dash, endpoint);
          } catch (error) {
            if (error instanceof AppError) return render(dash, { status: error.status, problem: error.message });
            throw error;
          }
          return render(dash, { notice: html`<p role="status" class="notice">A test.ping event is on its way to ${endpoint.url}: its delivery shows in the log below.</p>` });
        }),
      { dashboard: "write" },
    )
    .post(
      "/webhooks/events/:eventId/redeliver",
      ({ dash, params }) =>
        pageOrRefusal(assets, async () => {
          const event = uuidPattern.test(params.eventId) ? await findMerchantEvent(db, dash.merchantId, dash.mode, params.eventId) : undefined;
          if (!event) throw new NotFoundError(`No event ${params.eventId} in this account's ${dash.mode} mode.`);
          const payment = event.paymentId ? await findPayment(db, event.paymentId) : undefined;
          const deliveries = await redeliverOwnEvent({ db, config }, event, payment?.callbackUrl ?? null);
          return render(dash, { notice: html`<p role="status" class="notice">${event.type} sent again (${deliveries} deliver${deliveries === 1 ? "y" : "ies"}).</p>` });
        }),
      { dashboard: "write" },
    );
};

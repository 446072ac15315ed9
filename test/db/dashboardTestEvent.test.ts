import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createLogger } from "../../config/logger.ts";
import { assignFeedPositions } from "../../db/eventFeed.ts";
import { paymentEvents, webhookDeliveries, webhookEndpoints } from "../../db/schema/index.ts";
import { verifyWebhook } from "../../domain/webhookSignature.ts";
import { deliverWebhook } from "../../jobs/deliverWebhook.ts";
import { dashboardRequest, signedInUser, type DashboardUser } from "../../harness/dashboard.ts";
import { anvilNetwork } from "../../harness/fixtures.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../harness/webhookReceiver.ts";

/**
 * The Webhooks page's "Send test event": a `test.ping` to one endpoint, whatever its filter,
 * delivered (signed, logged) by the normal delivery job, bounded per hour, and never by a
 * viewer, a stranger, or a forged form. Real Postgres and Redis, a loopback receiver.
 */
let api: TestApi;
let acme: TestMerchant;
let rival: TestMerchant;
let developer: DashboardUser;
let viewer: DashboardUser;
let stranger: DashboardUser;
let receiver: WebhookReceiver;
let endpoint: { id: string; secret: string };

const post = (user: DashboardUser, path: string, form: Record<string, string> = {}) => dashboardRequest(api, path, { cookie: user.cookie, form: { csrf: user.csrf, ...form } });
const pings = () => api.db.select().from(paymentEvents).where(eq(paymentEvents.type, "test.ping"));

beforeAll(async () => {
  receiver = startWebhookReceiver();
  api = await createTestApi({ env: { WEBHOOK_REDELIVERIES_PER_HOUR: "2" }, networks: [anvilNetwork("http://127.0.0.1:1")] });
  acme = await api.seedMerchant("Acme");
  rival = await api.seedMerchant("Rival");
  developer = await signedInUser(api, acme.id, "dev@acme-ping.test", "developer");
  viewer = await signedInUser(api, acme.id, "viewer@acme-ping.test", "viewer");
  stranger = await signedInUser(api, rival.id, "owner@rival-ping.test", "owner");
  // An endpoint that takes only payment.completed: a test event goes to it all the same.
  const added = await post(developer, "/dashboard/webhooks", { url: receiver.url("/hook"), events: "payment.completed", password: developer.password });
  expect(added.status).toBe(200);
  const secret = /id="webhook-secret-value">(whsec_[^<]+)</.exec(added.text)![1]!;
  endpoint = { id: (await api.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.merchantId, acme.id)))[0]!.id, secret };
}, 60_000);

afterAll(async () => {
  await api?.close();
  receiver?.stop();
});

describe("send a test event", () => {
  test("a viewer, a stranger, no session, no CSRF token: refused, nothing sent", async () => {
    expect((await post(viewer, `/dashboard/webhooks/${endpoint.id}/test`)).status).toBe(403);
    expect((await post(stranger, `/dashboard/webhooks/${endpoint.id}/test`)).status).toBe(404);
    expect((await dashboardRequest(api, `/dashboard/webhooks/${endpoint.id}/test`, { form: {} })).status).toBe(401);
    expect((await dashboardRequest(api, `/dashboard/webhooks/${endpoint.id}/test`, { cookie: developer.cookie, form: {} })).status).toBe(403);
    expect((await post(developer, "/dashboard/webhooks/not-an-id/test")).status).toBe(404);
    expect(await pings()).toEqual([]);
    expect((await dashboardRequest(api, "/dashboard/webhooks", { cookie: viewer.cookie })).text).not.toContain(`/dashboard/webhooks/${endpoint.id}/test`);
  });

  test("a developer sends one: the delivery job posts it signed with the endpoint's secret, and the log shows it delivered", async () => {
    const sent = await post(developer, `/dashboard/webhooks/${endpoint.id}/test`);
    expect([sent.status, sent.text.includes("A test.ping event is on its way")]).toEqual([200, true]);
    const [event] = await pings();
    expect([event!.merchantId, event!.mode, event!.paymentId]).toEqual([acme.id, "test", null]);
    const [delivery] = await api.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, event!.id));
    expect([delivery!.endpointId, delivery!.url]).toEqual([endpoint.id, receiver.url("/hook")]);

    const outcome = await deliverWebhook({ config: api.config, db: api.db, logger: createLogger({ level: "silent" }) })({ data: { deliveryId: delivery!.id }, id: "test", attemptsMade: 0 } as never);
    expect(outcome).toEqual({ status: "delivered", attempt: 1 });
    const [got] = receiver.at("/hook");
    const body = verifyWebhook(got!.body, got!.headers, endpoint.secret) as { id: string; type: string; paymentId: string | null; mode: string; data: { endpointId: string } };
    expect([body.id, body.type, body.paymentId, body.mode, body.data.endpointId]).toEqual([event!.id, "test.ping", null, "test", endpoint.id]);

    // The relay positions committed events in the feed (the log lists positioned ones), as it does before enqueueing.
    await assignFeedPositions(api.db);
    const page = await dashboardRequest(api, "/dashboard/webhooks", { cookie: viewer.cookie });
    expect(page.text).toContain("test.ping");
    expect(page.text).toContain(`${receiver.url("/hook")}: delivered, 1 attempt(s), last HTTP 200`);
  });

  test("at most WEBHOOK_REDELIVERIES_PER_HOUR an hour per account (2 here); a disabled endpoint gets none", async () => {
    expect((await post(developer, `/dashboard/webhooks/${endpoint.id}/test`)).status).toBe(200);
    const third = await post(developer, `/dashboard/webhooks/${endpoint.id}/test`);
    expect([third.status, third.text.includes("At most 2 test events an hour")]).toEqual([429, true]);
    expect((await pings()).length).toBe(2);
    await api.db.update(webhookEndpoints).set({ disabledAt: new Date(), disabledReason: "410 Gone" }).where(eq(webhookEndpoints.id, endpoint.id));
    const disabled = await post(developer, `/dashboard/webhooks/${endpoint.id}/test`);
    expect([disabled.status, disabled.text.includes("is disabled")]).toEqual([409, true]);
    expect((await pings()).length).toBe(2);
  });
});

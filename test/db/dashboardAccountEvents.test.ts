import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, isNull } from "drizzle-orm";
import { dashboardUsers, paymentEvents, webhookDeliveries, webhookEndpoints } from "../../db/schema/index.ts";
import { dashboardRequest, signedInUser, type DashboardUser } from "../../harness/dashboard.ts";
import { anvilNetwork } from "../../harness/fixtures.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * Dangerous changes made in the dashboard are announced to the merchant as `account.changed`
 * events through the events outbox (an event row with no payment and its deliveries, written
 * with the change); a refused attempt announces nothing. Real Postgres and Redis.
 */
let api: TestApi;
let acme: TestMerchant;
let rival: TestMerchant;
let owner: DashboardUser;
let developer: DashboardUser;
let viewer: DashboardUser;
let stranger: DashboardUser;
let endpointId: string;

const post = (user: DashboardUser, path: string, form: Record<string, string> = {}) => dashboardRequest(api, path, { cookie: user.cookie, form: { csrf: user.csrf, ...form } });
const accountEvents = (merchantId: string) =>
  api.db
    .select()
    .from(paymentEvents)
    .where(and(eq(paymentEvents.merchantId, merchantId), isNull(paymentEvents.paymentId), eq(paymentEvents.type, "account.changed")))
    .orderBy(paymentEvents.sequence);
const userId = async (email: string) => (await api.db.select({ id: dashboardUsers.id }).from(dashboardUsers).where(eq(dashboardUsers.email, email)))[0]!.id;
const changesOf = async (merchantId: string) => (await accountEvents(merchantId)).map((e) => `${e.mode} ${(e.payload as { change: string }).change}`);

beforeAll(async () => {
  api = await createTestApi({ networks: [anvilNetwork("http://127.0.0.1:1")] });
  acme = await api.seedMerchant("Acme");
  rival = await api.seedMerchant("Rival");
  owner = await signedInUser(api, acme.id, "owner@acme-events.test", "owner");
  developer = await signedInUser(api, acme.id, "dev@acme-events.test", "developer");
  viewer = await signedInUser(api, acme.id, "viewer@acme-events.test", "viewer");
  stranger = await signedInUser(api, rival.id, "owner@rival-events.test", "owner");
  // An endpoint taking every event, added in the dashboard: its own addition is the first change announced.
  expect((await post(developer, "/dashboard/webhooks", { url: "http://127.0.0.1:9/all", password: developer.password })).status).toBe(200);
  endpointId = (await api.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.merchantId, acme.id)))[0]!.id;
}, 60_000);

afterAll(async () => {
  await api?.close();
});

describe("account.changed", () => {
  test("a wallet change is announced with what, who, when and from where, and delivered to the endpoints that take it", async () => {
    const before = Date.now();
    const wallet = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
    const done = await dashboardRequest(api, "/dashboard/wallets", {
      cookie: owner.cookie,
      form: { csrf: owner.csrf, network: "anvil", address: wallet, password: owner.password },
      headers: { "user-agent": "events-test" },
    });
    expect(done.status).toBe(303);
    const event = (await accountEvents(acme.id)).at(-1)!;
    expect(event.mode).toBe("test");
    expect(event.payload).toMatchObject({
      change: "settlement_wallet.changed",
      details: { network: "anvil", from: null, to: wallet },
      by: { email: owner.email, role: "owner" },
      from: { userAgent: "events-test" },
    });
    const at = Date.parse((event.payload as { at: string }).at);
    expect(at >= before - 1000 && at <= Date.now() + 1000).toBe(true);
    const deliveries = await api.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, event.id));
    expect(deliveries.map((d) => [d.endpointId, d.url, d.status])).toEqual([[endpointId, "http://127.0.0.1:9/all", "pending"]]);
  });

  test("key rotation, webhook secret rotation and team changes are announced; a team change in both modes", async () => {
    expect((await post(developer, "/dashboard/keys/rotate", { kind: "secret", password: developer.password })).status).toBe(200);
    expect((await post(developer, `/dashboard/webhooks/${endpointId}/rotate`, { password: developer.password })).status).toBe(200);
    const member = await signedInUser(api, acme.id, "temp@acme-events.test", "viewer");
    expect((await post(owner, `/dashboard/team/${await userId(member.email)}/role`, { role: "developer" })).status).toBe(303);
    expect((await changesOf(acme.id)).slice(-4)).toEqual(["test api_key.rotated", "test webhook_endpoint.secret_rotated", "test team.role_changed", "live team.role_changed"]);
    expect(await changesOf(rival.id)).toEqual([]);
  });

  test("a refused change announces nothing: wrong password, viewer, stranger, no session, no CSRF token, the last owner", async () => {
    const count = (await accountEvents(acme.id)).length;
    const wallet = { network: "anvil", address: "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65" };
    expect((await post(owner, "/dashboard/wallets", { ...wallet, password: "not the password" })).status).toBe(403);
    expect((await post(viewer, "/dashboard/wallets", { ...wallet, password: viewer.password })).status).toBe(403);
    expect((await post(viewer, "/dashboard/keys/rotate", { kind: "secret", password: viewer.password })).status).toBe(403);
    expect((await post(stranger, `/dashboard/webhooks/${endpointId}/rotate`, { password: stranger.password })).status).toBe(404);
    expect((await dashboardRequest(api, "/dashboard/keys/rotate", { form: { kind: "secret", password: owner.password } })).status).toBe(401);
    expect((await dashboardRequest(api, "/dashboard/keys/rotate", { cookie: owner.cookie, form: { kind: "secret", password: owner.password } })).status).toBe(403);
    expect((await post(owner, `/dashboard/team/${await userId(owner.email)}/role`, { role: "viewer" })).status).toBe(409);
    expect((await accountEvents(acme.id)).length).toBe(count);
  });

  test("the event is in the merchant's feed with a null paymentId, and endpoints can filter for it", async () => {
    // The test key was rotated above; the team change was announced in live mode too.
    const feed = await fetchFeed(acme.apiKey, acme.apiSecret);
    const changed = feed.filter((e) => e.type === "account.changed");
    expect(changed.length).toBeGreaterThan(0);
    expect(changed.every((e) => e.paymentId === null)).toBe(true);
    const only = await post(developer, "/dashboard/webhooks", { url: "http://127.0.0.1:9/changes", events: "account.changed", password: developer.password });
    expect(only.status).toBe(200);
  });
});

async function fetchFeed(key: string, secret: string): Promise<Array<{ type: string; paymentId: string | null }>> {
  const response = await api.app.handle(new Request("http://localhost/api/v1/events?limit=100", { headers: { "x-api-key": key, "x-api-secret": secret } }));
  expect(response.status).toBe(200);
  return ((await response.json()) as { events: Array<{ type: string; paymentId: string | null }> }).events;
}

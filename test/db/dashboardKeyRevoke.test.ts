import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, isNull } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import { dashboardAudit, paymentEvents } from "../../db/schema/index.ts";
import { dashboardRequest, signedInUser, type DashboardUser } from "../../harness/dashboard.ts";
import { anvilNetwork } from "../../harness/fixtures.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * Revoking the mode's API keys from the dashboard: owners only, with the password and the CSRF
 * token; audited and announced; the keys then answer 401, and new ones can be issued (the secret
 * shown once). Real Postgres and Redis.
 */
let api: TestApi;
let acme: TestMerchant;
let rival: TestMerchant;
let owner: DashboardUser;
let developer: DashboardUser;
let viewer: DashboardUser;
let stranger: DashboardUser;

const revoke = (user: DashboardUser, form: Record<string, string>) => dashboardRequest(api, "/dashboard/keys/revoke", { cookie: user.cookie, form: { csrf: user.csrf, ...form } });
const stats = (key: string, secret: string) => api.request("/api/v1/payments/merchant/stats", { headers: { "x-api-key": key, "x-api-secret": secret } });
const publicRead = (key: string) => api.request("/api/v1/merchants/wallets", { headers: { "x-public-key": key } });
const revokedAudit = (merchantId: string) => api.db.select().from(dashboardAudit).where(and(eq(dashboardAudit.merchantId, merchantId), eq(dashboardAudit.action, "api_key.revoked")));
const revokedEvents = async (merchantId: string) =>
  (await api.db.select().from(paymentEvents).where(and(eq(paymentEvents.merchantId, merchantId), isNull(paymentEvents.paymentId), eq(paymentEvents.type, "account.changed")))).filter(
    (e) => (e.payload as { change: string }).change === "api_key.revoked",
  );
const acmeKeysWork = async () => [(await stats(acme.testApiKey, acme.testApiSecret)).status, (await publicRead(acme.publicKey)).status];

beforeAll(async () => {
  api = await createTestApi({ networks: [anvilNetwork("http://127.0.0.1:1")] });
  acme = await api.seedMerchant("Acme");
  rival = await api.seedMerchant("Rival");
  owner = await signedInUser(api, acme.id, "owner@acme-revoke.test", "owner");
  developer = await signedInUser(api, acme.id, "dev@acme-revoke.test", "developer");
  viewer = await signedInUser(api, acme.id, "viewer@acme-revoke.test", "viewer");
  stranger = await signedInUser(api, rival.id, "owner@rival-revoke.test", "owner");
}, 60_000);

afterAll(async () => {
  await api?.close();
});

describe("revoking API keys", () => {
  test("refused with no session, for a viewer or developer, without the CSRF token or from another site, with a wrong password or kind: nothing revoked", async () => {
    expect(await acmeKeysWork()).toEqual([200, 200]);
    const form = { kind: "all", password: owner.password };
    const attempts: Array<[string, Promise<{ status: number; text: string }>, number]> = [
      ["no session", dashboardRequest(api, "/dashboard/keys/revoke", { form: { csrf: owner.csrf, ...form } }), 401],
      ["viewer", revoke(viewer, { kind: "all", password: viewer.password }), 403],
      ["developer", revoke(developer, { kind: "all", password: developer.password }), 403],
      ["no CSRF token", dashboardRequest(api, "/dashboard/keys/revoke", { cookie: owner.cookie, form }), 403],
      ["another session's CSRF token", dashboardRequest(api, "/dashboard/keys/revoke", { cookie: owner.cookie, form: { csrf: developer.csrf, ...form } }), 403],
      ["cross-site", dashboardRequest(api, "/dashboard/keys/revoke", { cookie: owner.cookie, form: { csrf: owner.csrf, ...form }, origin: "https://evil.example" }), 403],
      ["bad kind", revoke(owner, { kind: "everything", password: owner.password }), 400],
    ];
    for (const [why, response, status] of attempts) expect([why, (await response).status]).toEqual([why, status]);
    const wrong = await revoke(owner, { kind: "all", password: "not the password" });
    expect([wrong.status, wrong.text.includes("Nothing was revoked")]).toEqual([403, true]);
    expect(await acmeKeysWork()).toEqual([200, 200]);
    expect(await revokedAudit(acme.id)).toEqual([]);
    expect(await revokedEvents(acme.id)).toEqual([]);
  });

  test("only an owner is offered the form; another merchant's owner revokes only their own keys", async () => {
    const forDeveloper = await dashboardRequest(api, "/dashboard/keys", { cookie: developer.cookie });
    const forOwner = await dashboardRequest(api, "/dashboard/keys", { cookie: owner.cookie });
    expect([forDeveloper.text.includes("/dashboard/keys/revoke"), forOwner.text.includes("/dashboard/keys/revoke")]).toEqual([false, true]);
    expect((await revoke(stranger, { kind: "all", password: stranger.password })).status).toBe(200);
    expect([(await stats(rival.testApiKey, rival.testApiSecret)).status, (await publicRead(rival.publicKey)).status]).toEqual([401, 401]);
    expect(await acmeKeysWork()).toEqual([200, 200]);
    expect(await revokedAudit(acme.id)).toEqual([]);
  });

  test("the owner's revoke stops the mode's key + secret and public key, is audited and announced, and new keys can be issued", async () => {
    const done = await dashboardRequest(api, "/dashboard/keys/revoke", {
      cookie: owner.cookie,
      form: { csrf: owner.csrf, kind: "all", password: owner.password },
      headers: { "user-agent": "revoke-test" },
    });
    expect([done.status, done.text.includes('id="revoked"'), done.text.includes("Issue new keys")]).toEqual([200, true, true]);
    expect(await acmeKeysWork()).toEqual([401, 401]);
    // The other mode's keys are untouched.
    expect((await stats(acme.apiKey, acme.apiSecret)).status).toBe(200);
    const audit = await revokedAudit(acme.id);
    expect(audit.length).toBe(1);
    expect(audit[0]!.details.mode).toBe("test");
    expect((audit[0]!.details.keys as Array<{ kind: string }>).map((k) => k.kind).sort()).toEqual(["public", "secret"]);
    expect(audit[0]!.userAgent).toBe("revoke-test");
    const events = await revokedEvents(acme.id);
    expect(events.map((e) => [e.mode, (e.payload as { by: { email: string } }).by.email])).toEqual([["test", owner.email]]);
    // Nothing left to revoke: said so, and nothing more written.
    expect((await revoke(owner, { kind: "secret", password: owner.password })).status).toBe(409);
    expect((await revokedAudit(acme.id)).length).toBe(1);

    const issuedSecret = await dashboardRequest(api, "/dashboard/keys/rotate", { cookie: owner.cookie, form: { csrf: owner.csrf, kind: "secret", password: owner.password } });
    expect(issuedSecret.status).toBe(200);
    const key = /id="new-key-value">([^<]+)</.exec(issuedSecret.text)![1]!;
    const secret = /id="new-secret-value">([^<]+)</.exec(issuedSecret.text)![1]!;
    expect((await stats(key, secret)).status).toBe(200);
    const issuedPublic = await dashboardRequest(api, "/dashboard/keys/rotate", { cookie: owner.cookie, form: { csrf: owner.csrf, kind: "public", password: owner.password } });
    const publicKey = /id="new-key-value">([^<]+)</.exec(issuedPublic.text)![1]!;
    expect(publicKey).toStartWith("pk_test_");
    expect((await publicRead(publicKey)).status).toBe(200);
    const later = await dashboardRequest(api, "/dashboard/keys", { cookie: owner.cookie });
    expect([later.text.includes(secret), later.text.includes("Rotate or issue a key")]).toEqual([false, true]);
  });

  test("with two-step sign-in on, the authentication code is asked too", async () => {
    const careful = await api.seedMerchant("Careful");
    const user = await signedInUser(api, careful.id, "owner@careful-revoke.test", "owner");
    const secret = /name="secret" value="([A-Z2-7]{32})"/.exec((await dashboardRequest(api, "/dashboard/account", { cookie: user.cookie })).text)![1]!;
    const t0 = Date.now();
    const [now, next] = [t0, t0 + 30_000].map((at) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: at }));
    const enabled = await dashboardRequest(api, "/dashboard/account/totp/enable", { cookie: user.cookie, form: { csrf: user.csrf, secret, code: now!, password: user.password } });
    expect(enabled.headers.get("location")).toBe("/dashboard/account?done=on");
    expect((await revoke(user, { kind: "secret", password: user.password })).status).toBe(403);
    expect((await stats(careful.testApiKey, careful.testApiSecret)).status).toBe(200);
    expect((await revoke(user, { kind: "secret", password: user.password, totp: next! })).status).toBe(200);
    expect((await stats(careful.testApiKey, careful.testApiSecret)).status).toBe(401);
    // Only the kind asked for: the public key still reads.
    expect((await publicRead(careful.publicKey)).status).toBe(200);
  });
});

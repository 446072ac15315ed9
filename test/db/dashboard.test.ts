import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { Secret, TOTP } from "otpauth";
import { findAgentPolicy } from "../../db/agentPolicies.ts";
import { findUnknownAgents } from "../../db/agentSettings.ts";
import { insertRefundRequest } from "../../db/refundRequests.ts";
import { listReturnOrigins } from "../../db/returnOrigins.ts";
import { settlementWalletsByNetwork } from "../../db/settlementWallets.ts";
import { sandboxDashboardLogin } from "../../scripts/lib/sandboxDashboardLogin.ts";
import { dashboardAudit, dashboardSessions, dashboardUsers, paymentEvents, refundRequests, webhookDeliveries, webhookEndpoints } from "../../db/schema/index.ts";
import { csrfOf, dashboardRequest, inviteLink, sessionCookieOf, signedInUser, type DashboardUser } from "../../harness/dashboard.ts";
import { anvilNetwork } from "../../harness/fixtures.ts";
import { insertPaymentRows, paymentRowFactory } from "../../harness/paymentRows.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * The merchant dashboard tried as its users and as strangers: no session, another merchant's
 * session, a viewer, a forged form (no or wrong CSRF token), a cross-site post. Real Postgres
 * and Redis; payments written as rows.
 */
let api: TestApi;
let acme: TestMerchant;
let rival: TestMerchant;
let owner: DashboardUser;
let developer: DashboardUser;
let viewer: DashboardUser;
let stranger: DashboardUser;
const acmePayments: string[] = [];
let rivalPayment: string;
let requestId: string;

beforeAll(async () => {
  api = await createTestApi({ env: { DASHBOARD_SIGNIN_ATTEMPTS: "3" }, networks: [anvilNetwork("http://127.0.0.1:1")] });
  acme = await api.seedMerchant("Acme");
  rival = await api.seedMerchant("Rival");
  const row = paymentRowFactory(api.config);
  const start = Date.UTC(2026, 0, 1);
  const rows = Array.from({ length: 30 }, (_, i) =>
    row(acme.id, {
      createdAt: new Date(start + i * 3_600_000),
      orderId: `order-${i}`,
      status: i % 3 === 0 ? "completed" : "pending",
      receiveAddress: `0x${i.toString(16).padStart(40, "a")}`,
      ...(i === 7 ? { orderId: '=HYPERLINK("x")', completingTxHash: `0x${"7".repeat(64)}` } : {}),
      ...(i === 11 ? { agentId: "shopping-bot" } : {}),
    }),
  );
  await insertPaymentRows(api.db, rows);
  acmePayments.push(...rows.map((r) => r.id!));
  const [theirs] = await insertPaymentRows(api.db, [row(rival.id, { orderId: "rival-order" })]);
  rivalPayment = theirs!.id!;
  const request = await insertRefundRequest(api.db, {
    paymentId: acmePayments[0]!,
    merchantId: acme.id,
    mode: "test",
    status: "awaiting_approval",
    toAddress: "0x00000000000000000000000000000000000000c1",
    amount: 500_000n,
    reason: "wrong size",
    requestedBy: "customer",
  });
  requestId = request.id;
  owner = await signedInUser(api, acme.id, "owner@acme.test", "owner");
  developer = await signedInUser(api, acme.id, "dev@acme.test", "developer");
  viewer = await signedInUser(api, acme.id, "viewer@acme.test", "viewer");
  stranger = await signedInUser(api, rival.id, "owner@rival.test", "owner");
}, 60_000);

afterAll(async () => {
  await api?.close();
});

const readPaths = () => ["/dashboard/payments", "/dashboard/payments.csv", `/dashboard/payments/${acmePayments[0]}`, "/dashboard/refund-requests", "/dashboard/keys", "/dashboard/audit", "/dashboard/account", "/dashboard/overview", "/dashboard/wallets", "/dashboard/team", "/dashboard/webhooks", "/dashboard/settings"];
const writePaths = () => [
  `/dashboard/payments/${acmePayments[0]}/refund-requests/${requestId}/approve`,
  `/dashboard/payments/${acmePayments[0]}/refund-requests/${requestId}/reject`,
  "/dashboard/keys/rotate",
  "/dashboard/sign-out",
  "/dashboard/sign-out-everywhere",
  "/dashboard/mode",
  "/dashboard/account/totp/enable",
  "/dashboard/account/totp/disable",
  "/dashboard/wallets",
  "/dashboard/team/invite",
  "/dashboard/webhooks",
  "/dashboard/settings/return-origins",
  "/dashboard/settings/unknown-agents",
  "/dashboard/settings/agents",
  "/dashboard/settings/agents/deactivate",
  `/dashboard/payments/${acmePayments[1]}/cancel`,
  `/dashboard/payments/${acmePayments[1]}/refund`,
  "/dashboard/wallets/delay",
  "/dashboard/wallets/anvil/cancel",
  "/dashboard/settings/currency",
  "/dashboard/webhooks/00000000-0000-4000-8000-000000000000/test",
  "/dashboard/keys/revoke",
];

describe("invitations and sign-in", () => {
  test("an invitation link works once, and asks for a long enough password typed twice", async () => {
    const link = await inviteLink(api, acme.id, "new@acme.test", "developer");
    expect((await dashboardRequest(api, link)).text).toContain("new@acme.test");
    const short = await dashboardRequest(api, link, { form: { password: "short", confirm: "short" } });
    expect([short.status, short.text.includes("password: from 12 to 200 characters")]).toEqual([400, true]);
    const differ = await dashboardRequest(api, link, { form: { password: "long enough password", confirm: "long enough passwort" } });
    expect([differ.status, differ.text.includes("confirm: the two passwords differ")]).toEqual([400, true]);
    const accepted = await dashboardRequest(api, link, { form: { password: "long enough password", confirm: "long enough password" } });
    expect([accepted.status, accepted.headers.get("location")]).toEqual([303, "/dashboard/sign-in?welcome=1"]);
    expect((await dashboardRequest(api, link)).status).toBe(404);
    expect((await dashboardRequest(api, link, { form: { password: "another long password", confirm: "another long password" } })).status).toBe(404);
    expect((await dashboardRequest(api, "/dashboard/invite/not-a-token")).status).toBe(404);
  });

  test("an e-mail of another merchant's team cannot be invited", async () => {
    await expect(inviteLink(api, acme.id, "owner@rival.test", "owner")).rejects.toThrow("already belongs to another merchant's team");
  });

  test("the cookie is HttpOnly, SameSite=Lax, scoped to /dashboard, not Secure outside production", async () => {
    const response = await dashboardRequest(api, "/dashboard/sign-in", { form: { email: owner.email, password: owner.password } });
    const cookie = response.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^sp_dashboard=[A-Za-z0-9_-]{43}; Path=\/dashboard; HttpOnly; SameSite=Lax; Max-Age=43200$/);
  });

  test("an unknown e-mail and a wrong password get the same answer", async () => {
    const unknown = await dashboardRequest(api, "/dashboard/sign-in", { form: { email: "nobody@acme.test", password: "whatever it is" } });
    const wrong = await dashboardRequest(api, "/dashboard/sign-in", { form: { email: "dev@acme.test", password: "whatever it is" } });
    const problem = (t: string) => /<p role="alert"[^>]*>([^<]+)</.exec(t)?.[1];
    expect([unknown.status, wrong.status]).toEqual([401, 401]);
    expect(problem(unknown.text)).toBe(problem(wrong.text)!);
    expect(sessionCookieOf(unknown)).toBeNull();
  });

  test("repeated wrong passwords lock the e-mail out, even for the right password, and unknown e-mails alike", async () => {
    const password = "throttled user password";
    await signedInUser(api, acme.id, "throttled@acme.test", "viewer", password);
    for (let i = 0; i < 3; i++) expect((await dashboardRequest(api, "/dashboard/sign-in", { form: { email: "throttled@acme.test", password: `wrong ${i}` } })).status).toBe(401);
    const locked = await dashboardRequest(api, "/dashboard/sign-in", { form: { email: "throttled@acme.test", password } });
    expect([locked.status, sessionCookieOf(locked), Number(locked.headers.get("retry-after")) > 0]).toEqual([429, null, true]);
    expect(locked.text).toContain("Too many failed attempts");
    for (let i = 0; i < 3; i++) await dashboardRequest(api, "/dashboard/sign-in", { form: { email: "ghost@acme.test", password: `wrong ${i}` } });
    expect((await dashboardRequest(api, "/dashboard/sign-in", { form: { email: "ghost@acme.test", password: "x" } })).status).toBe(429);
  });

  test("sign-in from another site is refused", async () => {
    const response = await dashboardRequest(api, "/dashboard/sign-in", { form: { email: owner.email, password: owner.password }, origin: "https://evil.example" });
    expect([response.status, sessionCookieOf(response)]).toEqual([403, null]);
  });

  test("sign-in sends the browser on only to a dashboard page", async () => {
    for (const [next, expected] of [
      ["/dashboard/keys", "/dashboard/keys"],
      ["https://evil.example/dashboard", "/dashboard/payments"],
      ["//evil.example/x", "/dashboard/payments"],
      ["/dashboard//evil.example", "/dashboard/payments"],
    ]) {
      const response = await dashboardRequest(api, "/dashboard/sign-in", { form: { email: owner.email, password: owner.password, next: next! } });
      expect([next, response.headers.get("location")]).toEqual([next, expected]);
    }
  });
});

describe("strangers", () => {
  test("with no session, pages send to sign-in and writes are 401", async () => {
    for (const path of readPaths()) {
      const response = await dashboardRequest(api, path);
      expect([path, response.status, response.headers.get("location")?.startsWith("/dashboard/sign-in?next=")]).toEqual([path, 303, true]);
    }
    for (const path of writePaths()) {
      const response = await dashboardRequest(api, path, { form: { csrf: owner.csrf, kind: "secret", password: owner.password, mode: "live" } });
      expect([path, response.status]).toEqual([path, 401]);
    }
    for (const root of ["/dashboard", "/dashboard/"]) expect([root, (await dashboardRequest(api, root)).headers.get("location")]).toEqual([root, "/dashboard/overview"]);
    const forged = await dashboardRequest(api, "/dashboard/payments", { cookie: "sp_dashboard=forged-token" });
    expect(forged.status).toBe(303);
  });

  test("another merchant's session sees none of this merchant's payments, and cannot decide its refunds", async () => {
    expect((await dashboardRequest(api, `/dashboard/payments/${acmePayments[0]}`, { cookie: stranger.cookie })).status).toBe(404);
    const list = await dashboardRequest(api, "/dashboard/payments", { cookie: stranger.cookie });
    expect([list.text.includes(acmePayments[0]!), list.text.includes(rivalPayment)]).toEqual([false, true]);
    const search = await dashboardRequest(api, `/dashboard/payments?q=${acmePayments[0]}`, { cookie: stranger.cookie });
    expect(search.text).toContain("No payments match.");
    for (const action of ["approve", "reject"]) {
      const response = await dashboardRequest(api, `/dashboard/payments/${acmePayments[0]}/refund-requests/${requestId}/${action}`, { cookie: stranger.cookie, form: { csrf: stranger.csrf } });
      expect([action, response.status]).toEqual([action, 404]);
    }
    const requests = await dashboardRequest(api, "/dashboard/refund-requests", { cookie: stranger.cookie });
    expect(requests.text).not.toContain(requestId);
    expect((await api.db.select().from(refundRequests).where(eq(refundRequests.id, requestId)))[0]!.status).toBe("awaiting_approval");
  });

  test("a viewer reads but the server refuses every change", async () => {
    for (const path of readPaths()) expect([path, (await dashboardRequest(api, path, { cookie: viewer.cookie })).status]).toEqual([path, 200]);
    for (const path of writePaths().slice(0, 3)) {
      const response = await dashboardRequest(api, path, { cookie: viewer.cookie, form: { csrf: viewer.csrf, kind: "secret", password: viewer.password } });
      expect([path, response.status]).toEqual([path, 403]);
    }
    expect((await dashboardRequest(api, `/dashboard/payments/${acmePayments[0]}`, { cookie: viewer.cookie })).text).not.toContain("/approve");
  });

  test("a write without the CSRF token, with another session's, or from another origin is refused", async () => {
    const path = `/dashboard/payments/${acmePayments[0]}/refund-requests/${requestId}/reject`;
    for (const [why, init] of [
      ["no token", { form: {} }],
      ["another session's token", { form: { csrf: developer.csrf } }],
      ["cross-site", { form: { csrf: owner.csrf }, origin: "https://evil.example" }],
      ["no Origin", { form: { csrf: owner.csrf }, origin: null }],
      ["a null Origin", { form: { csrf: owner.csrf }, origin: "null" }],
    ] as const) {
      const response = await dashboardRequest(api, path, { cookie: owner.cookie, ...init });
      expect([why, response.status]).toEqual([why, 403]);
    }
    expect((await api.db.select().from(refundRequests).where(eq(refundRequests.id, requestId)))[0]!.status).toBe("awaiting_approval");
  });
});

describe("payments", () => {
  test("the list pages newest first, filters, searches, and names a bad filter", async () => {
    const first = await dashboardRequest(api, "/dashboard/payments", { cookie: owner.cookie });
    const ids = (t: string) => [...t.matchAll(/href="\/dashboard\/payments\/([0-9a-f-]{36})"/g)].map((m) => m[1]);
    expect(ids(first.text)).toEqual(acmePayments.slice(5).reverse());
    const older = /href="([^"]+)" rel="next"/.exec(first.text)![1]!.replaceAll("&amp;", "&");
    expect(ids((await dashboardRequest(api, older, { cookie: owner.cookie })).text)).toEqual(acmePayments.slice(0, 5).reverse());
    const completed = await dashboardRequest(api, "/dashboard/payments?status=completed&from=2026-01-01&to=2026-01-01", { cookie: owner.cookie });
    expect(ids(completed.text)).toEqual([21, 18, 15, 12, 9, 6, 3, 0].map((i) => acmePayments[i]));
    for (const q of ["order-4", acmePayments[4]!, `0x${(4).toString(16).padStart(40, "a").toUpperCase()}`]) {
      expect([q, ids((await dashboardRequest(api, `/dashboard/payments?q=${encodeURIComponent(q)}`, { cookie: owner.cookie })).text)]).toEqual([q, [acmePayments[4]]]);
    }
    expect(ids((await dashboardRequest(api, `/dashboard/payments?q=0x${"7".repeat(64)}`, { cookie: owner.cookie })).text)).toEqual([acmePayments[7]]);
    expect(ids((await dashboardRequest(api, "/dashboard/payments?agent=shopping-bot", { cookie: owner.cookie })).text)).toEqual([acmePayments[11]]);
    const bad = await dashboardRequest(api, "/dashboard/payments?status=paid", { cookie: owner.cookie });
    expect([bad.status, bad.text.includes("status: one of pending")]).toEqual([400, true]);
    expect((await dashboardRequest(api, "/dashboard/payments?from=2026-02-30", { cookie: owner.cookie })).status).toBe(400);
    expect((await dashboardRequest(api, "/dashboard/payments?network=nowhere", { cookie: owner.cookie })).status).toBe(400);
  });

  test("the CSV export holds the filtered rows, amounts as decimals, formulas defused", async () => {
    const csv = await dashboardRequest(api, "/dashboard/payments.csv?q=order-3", { cookie: owner.cookie });
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(csv.text.split("\r\n")).toEqual([
      "id,createdAt,status,amount,amountReceived,token,network,orderId,receiveAddress,transactionHash",
      `"${acmePayments[3]}","2026-01-01T03:00:00.000Z","completed","1","0","USDC","anvil","order-3","0x${(3).toString(16).padStart(40, "a")}",""`,
      "",
    ]);
    const formula = await dashboardRequest(api, `/dashboard/payments.csv?q=${acmePayments[7]}`, { cookie: owner.cookie });
    expect(formula.text).toContain(`"'=HYPERLINK(""x"")"`);
  });

  test("a payment's page escapes what the payer or merchant wrote", async () => {
    const page = await dashboardRequest(api, `/dashboard/payments/${acmePayments[7]}`, { cookie: owner.cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain("=HYPERLINK(&quot;x&quot;)");
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
  });

  test("test and live are apart; the switch is on every page and test mode carries a banner", async () => {
    const [live] = await insertPaymentRows(api.db, [paymentRowFactory(api.config)(acme.id, { mode: "live", isTest: false, orderId: "live-order" })]);
    const testPage = await dashboardRequest(api, "/dashboard/payments", { cookie: owner.cookie });
    expect([testPage.text.includes("Test mode:"), testPage.text.includes("live-order"), testPage.text.includes("Switch to live")]).toEqual([true, false, true]);
    const switched = await dashboardRequest(api, "/dashboard/mode", { cookie: owner.cookie, form: { csrf: owner.csrf, mode: "live" } });
    expect(switched.status).toBe(303);
    const cookie = `${owner.cookie}; ${sessionCookieOf(switched)}`;
    const livePage = await dashboardRequest(api, "/dashboard/payments", { cookie });
    expect([livePage.text.includes("Test mode:"), livePage.text.includes("live-order"), livePage.text.includes("Switch to test")]).toEqual([false, true, true]);
    expect((await dashboardRequest(api, `/dashboard/payments/${live!.id}`, { cookie: owner.cookie })).status).toBe(404);
  });
});

describe("overview", () => {
  test("volume per day in the settlement currency and counts by status, network and token, over the chosen days", async () => {
    const page = await dashboardRequest(api, "/dashboard/overview?from=2026-01-01&to=2026-01-03", { cookie: viewer.cookie });
    expect(page.status).toBe(200);
    expect(page.text).toContain("<strong>10.00 USD</strong>");
    const cells = [...page.text.matchAll(/<tr><td>([^<]+)<\/td><td class="num">([^<]+)<\/td>/g)].map((m) => [m[1], m[2]]);
    expect(cells).toEqual([
      // 30 payments an hour apart from 2026-01-01 00:00, every third one completed: 8 on the first day, 2 on the next.
      ["2026-01-01", "8.00"],
      ["2026-01-02", "2.00"],
      ["2026-01-03", "0.00"],
      ["pending", "20"],
      ["completed", "10"],
      ["Anvil", "30"],
      ["USDC", "30"],
    ]);
    const data = JSON.parse(/<script type="application\/json" id="overview-data">([^<]+)<\/script>/.exec(page.text)![1]!);
    expect(data.days[0]).toEqual({ day: "2026-01-01", volume: "8.00" });
    const theirs = await dashboardRequest(api, "/dashboard/overview?from=2026-01-01&to=2026-01-03", { cookie: stranger.cookie });
    expect(theirs.text).toContain("<strong>0.00 USD</strong>");
    for (const bad of ["from=2026-13-01", "from=2025-01-01&to=2026-06-01", "from=2026-01-05&to=2026-01-01", "to=2026-01-01T10:00"]) {
      expect([bad, (await dashboardRequest(api, `/dashboard/overview?${bad}`, { cookie: viewer.cookie })).status]).toEqual([bad, 400]);
    }
  });
});

describe("settlement wallets", () => {
  const wallet = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
  const change = (user: DashboardUser, form: Record<string, string>) => dashboardRequest(api, "/dashboard/wallets", { cookie: user.cookie, form: { csrf: user.csrf, network: "anvil", ...form } });
  const current = async () => (await settlementWalletsByNetwork(api.db, acme.id)).get(api.config.networks.find((n) => n.shortName === "anvil")!.id);

  test("only an owner changes one, with the password, to an address sweeps can reach; each change is audited", async () => {
    expect((await change(developer, { address: wallet, password: developer.password })).status).toBe(403);
    expect((await change(viewer, { address: wallet, password: viewer.password })).status).toBe(403);
    const wrong = await change(owner, { address: wallet, password: "not the password" });
    expect([wrong.status, wrong.text.includes("Nothing changed")]).toEqual([403, true]);
    for (const [address, problem] of [
      ["0x1234", "address: not a valid"],
      ["0x0000000000000000000000000000000000000000", "cannot come back"],
    ] as const) {
      const refused = await change(owner, { address, password: owner.password });
      expect([address, refused.status, refused.text.includes(problem)]).toEqual([address, 400, true]);
    }
    expect((await change(owner, { network: "base", address: wallet, password: owner.password })).status).toBe(400);
    expect(await current()).toBeUndefined();
    const done = await change(owner, { address: wallet.toLowerCase(), password: owner.password });
    expect([done.status, done.headers.get("location")]).toEqual([303, "/dashboard/wallets?done=changed"]);
    expect(await current()).toBe(wallet);
    const next = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";
    expect((await change(owner, { address: next, password: owner.password })).status).toBe(303);
    const audit = await api.db.select().from(dashboardAudit).where(eq(dashboardAudit.action, "settlement_wallet.changed")).orderBy(dashboardAudit.createdAt);
    expect(audit.map((a) => a.details)).toEqual([
      { network: "anvil", from: null, to: wallet },
      { network: "anvil", from: wallet, to: next },
    ]);
    const page = await dashboardRequest(api, "/dashboard/wallets", { cookie: viewer.cookie });
    expect([page.text.includes(next), page.text.includes('action="/dashboard/wallets"')]).toEqual([true, false]);
  });
});

describe("team", () => {
  const post = (user: DashboardUser, path: string, form: Record<string, string> = {}) => dashboardRequest(api, path, { cookie: user.cookie, form: { csrf: user.csrf, ...form } });
  const roleOf = async (email: string) => (await api.db.select().from(dashboardUsers).where(eq(dashboardUsers.email, email)))[0];

  test("owners invite, change roles and remove; a role changed before the link is used stands; the last owner stays", async () => {
    for (const user of [developer, viewer]) expect((await post(user, "/dashboard/team/invite", { email: "newbie@acme.test", role: "owner" })).status).toBe(403);
    expect((await post(owner, "/dashboard/team/invite", { email: "not an address", role: "viewer" })).status).toBe(400);
    expect((await post(owner, "/dashboard/team/invite", { email: "owner@rival.test", role: "viewer" })).status).toBe(409);
    const invited = await post(owner, "/dashboard/team/invite", { email: "Newbie@acme.test", role: "owner" });
    expect(invited.status).toBe(200);
    const link = new URL(/id="invite-link-value">([^<]+)</.exec(invited.text)![1]!).pathname;
    const newbie = (await roleOf("newbie@acme.test"))!;
    expect([newbie.role, newbie.passwordHash]).toEqual(["owner", null]);
    // Demoted before accepting: the link does not bring the invited role back.
    expect((await post(owner, `/dashboard/team/${newbie.id}/role`, { role: "viewer" })).status).toBe(303);
    expect((await dashboardRequest(api, link, { form: { password: "newbie's long password", confirm: "newbie's long password" } })).status).toBe(303);
    expect((await roleOf("newbie@acme.test"))!.role).toBe("viewer");
    const session = sessionCookieOf(await dashboardRequest(api, "/dashboard/sign-in", { form: { email: "newbie@acme.test", password: "newbie's long password" } }))!;
    expect((await dashboardRequest(api, "/dashboard/team", { cookie: session })).text).toContain("Only an owner may invite");

    const me = (await roleOf(owner.email))!;
    for (const [path, form] of [[`/dashboard/team/${me.id}/role`, { role: "developer" }], [`/dashboard/team/${me.id}/remove`, {}]] as const) {
      const refused = await post(owner, path, form);
      expect([path, refused.status, refused.text.includes("last owner")]).toEqual([path, 409, true]);
    }
    expect((await post(stranger, `/dashboard/team/${newbie.id}/remove`)).status).toBe(404);
    expect((await post(owner, `/dashboard/team/${newbie.id}/role`, { role: "king" })).status).toBe(400);

    expect((await post(owner, `/dashboard/team/${newbie.id}/remove`)).status).toBe(303);
    expect((await dashboardRequest(api, "/dashboard/payments", { cookie: session })).status).toBe(303);
    expect((await dashboardRequest(api, "/dashboard/sign-in", { form: { email: "newbie@acme.test", password: "newbie's long password" } })).status).toBe(401);
    // Invited again, they come back with nothing of before: a new password is needed.
    expect((await post(owner, "/dashboard/team/invite", { email: "newbie@acme.test", role: "developer" })).status).toBe(200);
    expect(await roleOf("newbie@acme.test")).toMatchObject({ role: "developer", passwordHash: null, removedAt: null });
    const actions = (await api.db.select().from(dashboardAudit).where(sql`${dashboardAudit.action} like 'team.%'`)).map((a) => a.action);
    expect(actions.sort()).toEqual(["team.invited", "team.invited", "team.removed", "team.role_changed"]);
  });
});

describe("webhooks", () => {
  const post = (user: DashboardUser, path: string, form: Record<string, string> = {}) => dashboardRequest(api, path, { cookie: user.cookie, form: { csrf: user.csrf, ...form } });
  const secretOf = (page: { text: string }) => /id="webhook-secret-value">(whsec_[^<]+)</.exec(page.text)?.[1];

  test("endpoints are added and rotated with the password (the secret shown once), removed, and events redelivered; never another account's", async () => {
    expect((await dashboardRequest(api, "/dashboard/webhooks", { cookie: viewer.cookie })).text).not.toContain('action="/dashboard/webhooks"');
    expect((await post(viewer, "/dashboard/webhooks", { url: "http://127.0.0.1:9/hook", password: viewer.password })).status).toBe(403);
    expect((await post(developer, "/dashboard/webhooks", { url: "http://127.0.0.1:9/hook", password: "wrong" })).status).toBe(403);
    // A wrong password counts toward the sign-in lockout (3 here); a sign-in forgets it, for the tests after this one.
    expect((await dashboardRequest(api, "/dashboard/sign-in", { form: { email: developer.email, password: developer.password } })).status).toBe(303);
    const bad = await post(developer, "/dashboard/webhooks", { url: "ftp://example.com", password: developer.password });
    expect([bad.status, bad.text.includes("url")]).toEqual([400, true]);
    const badEvent = await post(developer, "/dashboard/webhooks", { url: "http://127.0.0.1:9/hook", events: "payment.completed, payment.exploded", password: developer.password });
    expect([badEvent.status, badEvent.text.includes("payment.exploded")]).toEqual([400, true]);
    const added = await post(developer, "/dashboard/webhooks", { url: "http://127.0.0.1:9/hook", events: "payment.completed", password: developer.password });
    expect(added.status).toBe(200);
    const [endpoint] = await api.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.merchantId, acme.id));
    expect([endpoint!.events, secretOf(added)!.startsWith("whsec_")]).toEqual([["payment.completed"], true]);
    expect((await dashboardRequest(api, "/dashboard/webhooks", { cookie: developer.cookie })).text).not.toContain(secretOf(added)!);

    const rotated = await post(developer, `/dashboard/webhooks/${endpoint!.id}/rotate`, { password: developer.password });
    expect([rotated.status, secretOf(rotated) !== secretOf(added)]).toEqual([200, true]);
    for (const path of [`/dashboard/webhooks/${endpoint!.id}/rotate`, `/dashboard/webhooks/${endpoint!.id}/remove`]) {
      expect([path, (await post(stranger, path, { password: stranger.password })).status]).toEqual([path, 404]);
    }

    const eventId = randomUUID();
    await api.db.insert(paymentEvents).values({ id: eventId, merchantId: acme.id, mode: "test", paymentId: acmePayments[3]!, type: "payment.completed", payload: {}, feedPosition: 1 });
    expect((await dashboardRequest(api, "/dashboard/webhooks", { cookie: viewer.cookie })).text).toContain(`href="/dashboard/payments/${acmePayments[3]}"`);
    expect((await post(stranger, `/dashboard/webhooks/events/${eventId}/redeliver`)).status).toBe(404);
    const again = await post(developer, `/dashboard/webhooks/events/${eventId}/redeliver`);
    expect([again.status, again.text.includes("payment.completed sent again (1 delivery)")]).toEqual([200, true]);
    expect((await api.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, eventId))).map((d) => d.url)).toEqual(["http://127.0.0.1:9/hook"]);

    expect((await post(developer, `/dashboard/webhooks/${endpoint!.id}/remove`)).status).toBe(303);
    expect((await dashboardRequest(api, "/dashboard/webhooks", { cookie: developer.cookie })).text).toContain("No endpoints in test mode");
    const actions = (await api.db.select().from(dashboardAudit).where(sql`${dashboardAudit.action} like 'webhook_endpoint.%'`)).map((a) => a.action);
    expect(actions.sort()).toEqual(["webhook_endpoint.added", "webhook_endpoint.removed", "webhook_endpoint.secret_rotated"]);
  });
});

describe("settings", () => {
  const post = (user: DashboardUser, path: string, form: Record<string, string> = {}) => dashboardRequest(api, path, { cookie: user.cookie, form: { csrf: user.csrf, ...form } });

  test("return origins, agents without a policy and agent policies change with the API's checks, in the mode shown only", async () => {
    expect((await post(viewer, "/dashboard/settings/return-origins", { origins: "https://shop.example" })).status).toBe(403);
    const bad = await post(developer, "/dashboard/settings/return-origins", { origins: "https://shop.example\nftp://files.example" });
    expect([bad.status, bad.text.includes("Nothing changed")]).toEqual([400, true]);
    expect((await post(developer, "/dashboard/settings/return-origins", { origins: "https://shop.example\r\nhttps://Checkout.Example:8443" })).status).toBe(303);
    expect((await listReturnOrigins(api.db, acme.id, "test")).sort()).toEqual(["https://checkout.example:8443", "https://shop.example"]);
    expect(await listReturnOrigins(api.db, acme.id, "live")).toEqual([]);
    expect((await dashboardRequest(api, "/dashboard/settings", { cookie: stranger.cookie })).text).not.toContain("checkout.example");
    expect((await dashboardRequest(api, "/dashboard/settings", { cookie: viewer.cookie })).text).toContain("checkout.example");

    expect((await post(developer, "/dashboard/settings/unknown-agents", { unknownAgents: "maybe" })).status).toBe(400);
    expect((await post(developer, "/dashboard/settings/unknown-agents", { unknownAgents: "deny" })).status).toBe(303);
    expect([await findUnknownAgents(api.db, acme.id, "test"), await findUnknownAgents(api.db, acme.id, "live")]).toEqual(["deny", "allow"]);

    const badPolicy = await post(developer, "/dashboard/settings/agents", { agentId: "bot-1", allowedNetworks: "anvil, nowhere" });
    expect([badPolicy.status, badPolicy.text.includes("nowhere")]).toEqual([400, true]);
    expect((await post(developer, "/dashboard/settings/agents", { agentId: "bot-1", maxPerPayment: "25.50", allowedNetworks: "anvil", allowedTokens: "usdc" })).status).toBe(303);
    expect(await findAgentPolicy(api.db, acme.id, "test", "bot-1")).toMatchObject({ maxPerPayment: "25.5", dailyLimit: null, allowedNetworks: ["anvil"], allowedTokens: ["USDC"], active: true });
    expect((await post(developer, "/dashboard/settings/agents/deactivate", { agentId: "bot-1" })).status).toBe(303);
    expect((await findAgentPolicy(api.db, acme.id, "test", "bot-1"))!.active).toBe(false);
    expect((await post(stranger, "/dashboard/settings/agents/deactivate", { agentId: "bot-1" })).status).toBe(404);
    const actions = (await api.db.select().from(dashboardAudit).where(sql`${dashboardAudit.action} like 'settings.%' or ${dashboardAudit.action} like 'agent_policy.%'`)).map((a) => a.action);
    expect(actions.sort()).toEqual(["agent_policy.deactivated", "agent_policy.set", "settings.return_origins", "settings.unknown_agents"]);
  });
});

describe("a payment's actions", () => {
  const post = (user: DashboardUser, path: string, form: Record<string, string> = {}) => dashboardRequest(api, path, { cookie: user.cookie, form: { csrf: user.csrf, ...form } });
  const statusOf = async (id: string) => (await api.db.select({ status: sql<string>`status` }).from(sql`payments`).where(sql`id = ${id}::uuid`))[0]!.status;

  test("a pending payment is cancelled by the merchant's team, never by a viewer or a stranger; a refund needs the password", async () => {
    // Created now, due in 30 minutes: still pending once brought up to date.
    const [fresh] = await insertPaymentRows(api.db, [paymentRowFactory(api.config)(acme.id, { orderId: "to-cancel" })]);
    const pending = fresh!.id!;
    expect((await post(viewer, `/dashboard/payments/${pending}/cancel`)).status).toBe(403);
    expect((await post(stranger, `/dashboard/payments/${pending}/cancel`)).status).toBe(404);
    expect((await post(stranger, `/dashboard/payments/${pending}/refund`, { password: stranger.password })).status).toBe(404);
    expect(await statusOf(pending)).toBe("pending");
    const page = await dashboardRequest(api, `/dashboard/payments/${pending}`, { cookie: developer.cookie });
    expect([page.text.includes("Cancel payment"), page.text.includes(`/dashboard/payments/${pending}/refund`)]).toEqual([true, true]);
    const cancelled = await post(developer, `/dashboard/payments/${pending}/cancel`, { reason: "customer changed their mind" });
    expect([cancelled.status, cancelled.headers.get("location")]).toEqual([303, `/dashboard/payments/${pending}?done=cancelled`]);
    expect(await statusOf(pending)).toBe("cancelled");
    const again = await post(developer, `/dashboard/payments/${pending}/cancel`);
    expect([again.status, again.text.includes("only a pending payment")]).toEqual([409, true]);
    const wrong = await post(developer, `/dashboard/payments/${pending}/refund`, { password: "not it" });
    expect([wrong.status, wrong.text.includes("Nothing was refunded")]).toEqual([403, true]);
    expect((await dashboardRequest(api, "/dashboard/sign-in", { form: { email: developer.email, password: developer.password } })).status).toBe(303);
    const audit = await api.db.select().from(dashboardAudit).where(eq(dashboardAudit.action, "payment.cancelled"));
    expect(audit.map((a) => a.details)).toEqual([{ paymentId: pending, reason: "customer changed their mind" }]);
  });
});

describe("refund requests", () => {
  test("a developer rejects a request: it never sends, and the audit log says who", async () => {
    const waiting = await dashboardRequest(api, "/dashboard/refund-requests", { cookie: developer.cookie });
    expect(waiting.text).toContain(requestId);
    const response = await dashboardRequest(api, `/dashboard/payments/${acmePayments[0]}/refund-requests/${requestId}/reject`, { cookie: developer.cookie, form: { csrf: developer.csrf } });
    expect([response.status, response.headers.get("location")]).toEqual([303, `/dashboard/payments/${acmePayments[0]}?done=rejected`]);
    expect((await api.db.select().from(refundRequests).where(eq(refundRequests.id, requestId)))[0]!.status).toBe("rejected");
    const again = await dashboardRequest(api, `/dashboard/payments/${acmePayments[0]}/refund-requests/${requestId}/approve`, { cookie: owner.cookie, form: { csrf: owner.csrf } });
    expect(again.status).toBe(409);
    const audit = await api.db.select().from(dashboardAudit).where(eq(dashboardAudit.action, "refund_request.rejected"));
    expect(audit.map((a) => [a.merchantId, a.details.refundRequestId])).toEqual([[acme.id, requestId]]);
    expect((await dashboardRequest(api, "/dashboard/audit", { cookie: viewer.cookie })).text).toContain("refund_request.rejected");
    const unknown = await dashboardRequest(api, `/dashboard/payments/${acmePayments[0]}/refund-requests/${randomUUID()}/approve`, { cookie: owner.cookie, form: { csrf: owner.csrf } });
    expect(unknown.status).toBe(404);
  });
});

describe("API keys", () => {
  test("rotation asks for the password, shows the new secret once, and the old key then answers 401", async () => {
    const list = (key: string, secret: string) => api.request("/api/v1/refund-requests", { headers: { "x-api-key": key, "x-api-secret": secret } });
    expect((await list(acme.testApiKey, acme.testApiSecret)).status).toBe(200);
    const wrong = await dashboardRequest(api, "/dashboard/keys/rotate", { cookie: developer.cookie, form: { csrf: developer.csrf, kind: "secret", password: "not the password" } });
    expect([wrong.status, wrong.text.includes("Nothing was rotated")]).toEqual([403, true]);
    expect((await list(acme.testApiKey, acme.testApiSecret)).status).toBe(200);
    const rotated = await dashboardRequest(api, "/dashboard/keys/rotate", { cookie: developer.cookie, form: { csrf: developer.csrf, kind: "secret", password: developer.password } });
    expect(rotated.status).toBe(200);
    const key = /id="new-key-value">([^<]+)</.exec(rotated.text)![1]!;
    const secret = /id="new-secret-value">([^<]+)</.exec(rotated.text)![1]!;
    expect(key).toStartWith("sk_test_");
    expect((await list(acme.testApiKey, acme.testApiSecret)).status).toBe(401);
    expect((await list(key, secret)).status).toBe(200);
    const later = await dashboardRequest(api, "/dashboard/keys", { cookie: developer.cookie });
    expect(later.text.includes(secret)).toBe(false);
    const audit = await api.db.select().from(dashboardAudit).where(eq(dashboardAudit.action, "api_key.rotated"));
    expect(audit.map((a) => [a.details.kind, a.details.mode])).toEqual([["secret", "test"]]);
  });
});

describe("sessions", () => {
  const fresh = (email: string) => dashboardRequest(api, "/dashboard/sign-in", { form: { email, password: "correct horse battery staple" } }).then(sessionCookieOf);
  const ageSessions = (email: string, column: "last_seen_at" | "created_at", by: string) =>
    api.db.execute(sql`update dashboard_sessions set ${sql.raw(column)} = ${sql.raw(column)} - ${by}::interval where user_id = (select id from dashboard_users where email = ${email})`);

  test("a session idle past the idle timeout, or older than the absolute one, has ended", async () => {
    const user = await signedInUser(api, acme.id, "sleepy@acme.test", "viewer");
    await ageSessions(user.email, "last_seen_at", "31 minutes");
    expect((await dashboardRequest(api, "/dashboard/payments", { cookie: user.cookie })).status).toBe(303);
    const busy = (await fresh(user.email))!;
    expect((await dashboardRequest(api, "/dashboard/payments", { cookie: busy })).status).toBe(200);
    await ageSessions(user.email, "created_at", "12 hours 1 minute");
    expect((await dashboardRequest(api, "/dashboard/payments", { cookie: busy })).status).toBe(303);
  });

  test("a page refreshing itself (htmx) does not keep an unattended session alive", async () => {
    const user = await signedInUser(api, acme.id, "away@acme.test", "viewer");
    await ageSessions(user.email, "last_seen_at", "29 minutes");
    const refresh = { "hx-request": "true", "hx-trigger": "payments-table" };
    expect((await dashboardRequest(api, "/dashboard/payments", { cookie: user.cookie, headers: refresh })).status).toBe(200);
    await ageSessions(user.email, "last_seen_at", "2 minutes");
    const ended = await dashboardRequest(api, "/dashboard/payments", { cookie: user.cookie, headers: refresh });
    expect([ended.status, ended.headers.get("hx-redirect")]).toEqual([401, "/dashboard/sign-in?next=%2Fdashboard%2Fpayments"]);
    const back = await signedInUser(api, acme.id, "back@acme.test", "viewer");
    await ageSessions(back.email, "last_seen_at", "29 minutes");
    expect((await dashboardRequest(api, "/dashboard/payments", { cookie: back.cookie })).status).toBe(200);
    await ageSessions(back.email, "last_seen_at", "2 minutes");
    expect((await dashboardRequest(api, "/dashboard/payments", { cookie: back.cookie })).status).toBe(200);
  });

  test("sign-out ends this session; sign-out everywhere ends all of the user's", async () => {
    const user = await signedInUser(api, acme.id, "leaver@acme.test", "viewer");
    const second = (await fresh(user.email))!;
    const out = await dashboardRequest(api, "/dashboard/sign-out", { cookie: user.cookie, form: { csrf: user.csrf } });
    expect([out.status, out.headers.get("set-cookie")]).toEqual([303, "sp_dashboard=; Path=/dashboard; HttpOnly; SameSite=Lax; Max-Age=0"]);
    expect((await dashboardRequest(api, "/dashboard/payments", { cookie: user.cookie })).status).toBe(303);
    expect((await dashboardRequest(api, "/dashboard/payments", { cookie: second })).status).toBe(200);
    const third = (await fresh(user.email))!;
    const csrf = csrfOf(await dashboardRequest(api, "/dashboard/payments", { cookie: second }));
    expect((await dashboardRequest(api, "/dashboard/sign-out-everywhere", { cookie: second, form: { csrf } })).status).toBe(303);
    for (const cookie of [second, third]) expect((await dashboardRequest(api, "/dashboard/payments", { cookie })).status).toBe(303);
    const sessionsOf = async () =>
      (await api.db.select({ revoked: dashboardSessions.revoked }).from(dashboardSessions).innerJoin(dashboardUsers, eq(dashboardUsers.id, dashboardSessions.userId)).where(eq(dashboardUsers.email, user.email))).map((r) => r.revoked);
    expect((await sessionsOf()).filter((revoked) => !revoked)).toEqual([]);
    // The next sign-in deletes the dead sessions: one row left, its own.
    expect(await fresh(user.email)).not.toBeNull();
    expect(await sessionsOf()).toEqual([false]);
  });
});

describe("the sandbox's login", () => {
  test("signs in as the sandbox merchant's owner; the next start's password replaces it and ends its sessions", async () => {
    const sandbox = await api.seedMerchant("Sandbox merchant");
    const first = await sandboxDashboardLogin(api.db, sandbox.id);
    const signIn = (login: { email: string; password: string }) => dashboardRequest(api, "/dashboard/sign-in", { form: login });
    const session = sessionCookieOf(await signIn(first))!;
    expect((await dashboardRequest(api, "/dashboard/payments", { cookie: session })).text).toContain("Sandbox merchant");
    const second = await sandboxDashboardLogin(api.db, sandbox.id);
    expect(second.password).not.toBe(first.password);
    expect((await signIn(first)).status).toBe(401);
    expect((await dashboardRequest(api, "/dashboard/payments", { cookie: session })).status).toBe(303);
    expect((await signIn(second)).status).toBe(303);
  });
});

describe("two-step sign-in (TOTP)", () => {
  const codeFor = (secret: string, at = Date.now()) => TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: at });

  test("turned on with a code and the password, it is then asked at sign-in and on key rotation, each code once; turned off the same way", async () => {
    const user = await signedInUser(api, acme.id, "careful@acme.test", "developer");
    const page = await dashboardRequest(api, "/dashboard/account", { cookie: user.cookie });
    const secret = /name="secret" value="([A-Z2-7]{32})"/.exec(page.text)![1]!;
    expect(page.text).toContain("<svg");
    // Codes of this 30 s step and the next (both accepted now: one step of drift is allowed).
    const t0 = Date.now();
    const [now, next] = [codeFor(secret, t0), codeFor(secret, t0 + 30_000)];
    const enable = (form: Record<string, string>) => dashboardRequest(api, "/dashboard/account/totp/enable", { cookie: user.cookie, form: { csrf: user.csrf, secret, ...form } });
    expect((await enable({ code: "000000", password: user.password })).status).toBe(400);
    expect((await enable({ code: now, password: "not it" })).status).toBe(403);
    expect((await enable({ code: now, password: user.password })).headers.get("location")).toBe("/dashboard/account?done=on");
    const [stored] = await api.db.select().from(dashboardUsers).where(eq(dashboardUsers.email, user.email));
    expect(stored!.totpSecret).toBe(secret);
    /** Time passes: the steps taken so far are behind the codes of the test's steps again. */
    const timePasses = () => api.db.update(dashboardUsers).set({ totpLastStep: null }).where(eq(dashboardUsers.email, user.email));

    const signIn = (totp: string) => dashboardRequest(api, "/dashboard/sign-in", { form: { email: user.email, password: user.password, totp } });
    // (At most 2 failures between successes: the lockout here is 3, and a sign-in forgets them.)
    // The code that turned it on was used: it does not sign in.
    expect((await signIn(now)).status).toBe(401);
    expect((await signIn(next)).status).toBe(303);
    expect((await signIn("")).status).toBe(401);
    // A code, once accepted, is not accepted again within its window.
    expect((await signIn(next)).status).toBe(401);
    await timePasses();
    expect((await signIn(now)).status).toBe(303);
    expect((await signIn(codeFor(secret, Date.now() - 5 * 60_000))).status).toBe(401);
    const rotate = await dashboardRequest(api, "/dashboard/keys/rotate", { cookie: user.cookie, form: { csrf: user.csrf, kind: "public", password: user.password } });
    expect(rotate.status).toBe(403);
    // A code older than one accepted is refused too (it could have been seen before).
    expect((await signIn(next)).status).toBe(303);
    expect((await dashboardRequest(api, "/dashboard/keys/rotate", { cookie: user.cookie, form: { csrf: user.csrf, kind: "public", password: user.password, totp: now } })).status).toBe(403);
    await timePasses();

    const disable = (code: string) => dashboardRequest(api, "/dashboard/account/totp/disable", { cookie: user.cookie, form: { csrf: user.csrf, code, password: user.password } });
    expect((await disable("123456")).status).toBe(403);
    expect((await disable(now)).headers.get("location")).toBe("/dashboard/account?done=off");
    expect((await signIn("")).status).toBe(303);
    const audit = await api.db.select().from(dashboardAudit).where(sql`${dashboardAudit.action} like 'totp.%'`);
    expect(audit.map((a) => a.action).sort()).toEqual(["totp.disabled", "totp.enabled"]);
  });
});

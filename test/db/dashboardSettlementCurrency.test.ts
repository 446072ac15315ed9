import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { findMerchant } from "../../db/merchants.ts";
import { dashboardAudit } from "../../db/schema/index.ts";
import { dashboardRequest, signedInUser, type DashboardUser } from "../../harness/dashboard.ts";
import { anvilNetwork } from "../../harness/fixtures.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/** The settlement currency changed on the Settings page, with the operator CLI's check, by the team and nobody else. */
let api: TestApi;
let acme: TestMerchant;
let rival: TestMerchant;
let developer: DashboardUser;
let viewer: DashboardUser;
let stranger: DashboardUser;

const post = (user: DashboardUser, currency: string) => dashboardRequest(api, "/dashboard/settings/currency", { cookie: user.cookie, form: { csrf: user.csrf, settlementCurrency: currency } });
const currencyOf = async (id: string) => (await findMerchant(api.db, id))!.settlementCurrency;

beforeAll(async () => {
  api = await createTestApi({ env: { RATES_STATIC: "EUR=0.92,NGN=1550" }, networks: [anvilNetwork("http://127.0.0.1:1")] });
  acme = await api.seedMerchant("Acme");
  rival = await api.seedMerchant("Rival");
  developer = await signedInUser(api, acme.id, "dev@acme-currency.test", "developer");
  viewer = await signedInUser(api, acme.id, "viewer@acme-currency.test", "viewer");
  stranger = await signedInUser(api, rival.id, "owner@rival-currency.test", "owner");
}, 60_000);

afterAll(async () => {
  await api?.close();
});

describe("settlement currency", () => {
  test("a developer sets one the rates know; a bad one is named and changes nothing", async () => {
    for (const [given, problem] of [
      ["usdc", "no exchange rate for USDC"],
      ["XYZ", "no exchange rate for XYZ"],
      ["", "a currency code is needed"],
      ["<script>alert(1)</script>", "not a currency code"],
    ] as const) {
      const refused = await post(developer, given);
      expect([given, refused.status, refused.text.includes(`settlementCurrency: `), refused.text.includes(problem)]).toEqual([given, 400, true, true]);
    }
    expect(await currencyOf(acme.id)).toBe("USD");
    const done = await post(developer, "eur");
    expect([done.status, done.headers.get("location")]).toEqual([303, "/dashboard/settings?done=1"]);
    expect(await currencyOf(acme.id)).toBe("EUR");
    expect((await dashboardRequest(api, "/dashboard/settings", { cookie: viewer.cookie })).text).toContain('value="EUR"');
    expect((await dashboardRequest(api, "/dashboard/overview", { cookie: viewer.cookie })).text).toContain("EUR");
    const audit = await api.db.select().from(dashboardAudit).where(eq(dashboardAudit.action, "settings.settlement_currency"));
    expect(audit.map((a) => a.details)).toEqual([{ mode: "test", from: "USD", to: "EUR" }]);
  });

  test("a viewer, no session, no CSRF token, another site: refused; another merchant changes only its own", async () => {
    expect((await post(viewer, "NGN")).status).toBe(403);
    expect((await dashboardRequest(api, "/dashboard/settings/currency", { form: { settlementCurrency: "NGN" } })).status).toBe(401);
    expect((await dashboardRequest(api, "/dashboard/settings/currency", { cookie: developer.cookie, form: { settlementCurrency: "NGN" } })).status).toBe(403);
    expect((await dashboardRequest(api, "/dashboard/settings/currency", { cookie: developer.cookie, form: { csrf: developer.csrf, settlementCurrency: "NGN" }, origin: "https://evil.example" })).status).toBe(403);
    expect((await post(stranger, "NGN")).status).toBe(303);
    expect([await currencyOf(acme.id), await currencyOf(rival.id)]).toEqual(["EUR", "NGN"]);
  });
});

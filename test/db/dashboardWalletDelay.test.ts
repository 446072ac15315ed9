import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { findMerchantSettings } from "../../db/merchantSettings.ts";
import { dashboardAudit, paymentEvents, settlementWallets } from "../../db/schema/index.ts";
import { scheduledWallets, settlementWalletsByNetwork } from "../../db/settlementWallets.ts";
import { applyDueWalletChanges } from "../../payouts/index.ts";
import { dashboardRequest, signedInUser, type DashboardUser } from "../../harness/dashboard.ts";
import { anvilNetwork } from "../../harness/fixtures.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * A live settlement wallet change can wait a delay the merchant chose: recorded as waiting with
 * its time, shown with Cancel, in effect for reads from its time on, made final by the recheck's
 * step (once), audited and announced at each step. Real Postgres and Redis.
 */
let api: TestApi;
let acme: TestMerchant;
let rival: TestMerchant;
let owner: DashboardUser;
let developer: DashboardUser;
let viewer: DashboardUser;
let stranger: DashboardUser;
let networkId: string;
const FIRST = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const SECOND = "0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65";
const THIRD = "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc";

const live = (user: DashboardUser) => `${user.cookie}; sp_dashboard_mode=live`;
const post = (user: DashboardUser, path: string, form: Record<string, string> = {}) => dashboardRequest(api, path, { cookie: live(user), form: { csrf: user.csrf, ...form } });
const change = (user: DashboardUser, address: string) => post(user, "/dashboard/wallets", { network: "mainnet-anvil", address, password: user.password });
const wallet = async () => (await settlementWalletsByNetwork(api.db, acme.id)).get(networkId);
const changes = async () =>
  (await api.db.select().from(paymentEvents).where(and(eq(paymentEvents.merchantId, acme.id), isNull(paymentEvents.paymentId))).orderBy(paymentEvents.sequence)).map(
    (e) => `${e.mode} ${(e.payload as { change: string }).change}`,
  );
/** Time passes: the waiting change is due. */
const makeDue = () => api.db.update(settlementWallets).set({ pendingEffectiveAt: sql`now() - interval '1 second'` }).where(and(eq(settlementWallets.merchantId, acme.id), isNotNull(settlementWallets.pendingAddress)));

beforeAll(async () => {
  api = await createTestApi({
    networks: [anvilNetwork("http://127.0.0.1:1"), anvilNetwork("http://127.0.0.1:1", { name: "Mainnet anvil", shortName: "mainnet-anvil", chainId: "31339", isTestnet: false })],
  });
  networkId = api.config.networks.find((n) => n.shortName === "mainnet-anvil")!.id;
  acme = await api.seedMerchant("Acme");
  rival = await api.seedMerchant("Rival");
  owner = await signedInUser(api, acme.id, "owner@acme-delay.test", "owner");
  developer = await signedInUser(api, acme.id, "dev@acme-delay.test", "developer");
  viewer = await signedInUser(api, acme.id, "viewer@acme-delay.test", "viewer");
  stranger = await signedInUser(api, rival.id, "owner@rival-delay.test", "owner");
}, 60_000);

afterAll(async () => {
  await api?.close();
});

describe("delayed live wallet changes", () => {
  test("the delay is the owner's to set, with the password, among the choices offered; it is announced", async () => {
    for (const user of [developer, viewer]) expect((await post(user, "/dashboard/wallets/delay", { hours: "48", password: user.password })).status).toBe(403);
    expect((await post(owner, "/dashboard/wallets/delay", { hours: "48", password: "wrong" })).status).toBe(403);
    const bad = await post(owner, "/dashboard/wallets/delay", { hours: "5", password: owner.password });
    expect([bad.status, bad.text.includes("hours: one of 0, 24, 48, 72")]).toEqual([400, true]);
    expect((await dashboardRequest(api, "/dashboard/wallets/delay", { cookie: live(owner), form: { hours: "0", password: owner.password } })).status).toBe(403);
    expect((await post(owner, "/dashboard/wallets/delay", { hours: "48", password: owner.password })).status).toBe(303);
    expect(await changes()).toEqual(["live settlement_wallet.delay_changed"]);
  });

  test("a first wallet is set at once; a change of it waits, shown with its time, and reads keep the old one", async () => {
    expect((await change(owner, FIRST)).status).toBe(303);
    expect(await wallet()).toBe(FIRST);
    const scheduled = await change(owner, SECOND);
    expect([scheduled.status, scheduled.headers.get("location")]).toEqual([303, "/dashboard/wallets?done=scheduled"]);
    expect(await wallet()).toBe(FIRST);
    const waiting = (await scheduledWallets(api.db, acme.id)).get(networkId)!;
    expect(waiting.address).toBe(SECOND);
    const hours = (waiting.effectiveAt.getTime() - Date.now()) / 3_600_000;
    expect(hours > 47.9 && hours <= 48).toBe(true);
    const page = await dashboardRequest(api, "/dashboard/wallets", { cookie: live(viewer) });
    expect([page.text.includes(SECOND), page.text.includes("/dashboard/wallets/mainnet-anvil/cancel")]).toEqual([true, false]);
    expect((await dashboardRequest(api, "/dashboard/wallets", { cookie: live(owner) })).text).toContain("/dashboard/wallets/mainnet-anvil/cancel");
    // Test mode's wallets never wait.
    const testChange = (address: string) => dashboardRequest(api, "/dashboard/wallets", { cookie: owner.cookie, form: { csrf: owner.csrf, network: "anvil", address, password: owner.password } });
    for (const address of [FIRST, SECOND]) expect((await testChange(address)).headers.get("location")).toBe("/dashboard/wallets?done=changed");
    expect((await settlementWalletsByNetwork(api.db, acme.id)).get(api.config.networks.find((n) => n.shortName === "anvil")!.id)).toBe(SECOND);
    const audit = await api.db.select().from(dashboardAudit).where(eq(dashboardAudit.action, "settlement_wallet.change_scheduled"));
    expect(audit.map((a) => a.details)).toEqual([{ network: "mainnet-anvil", from: FIRST, to: SECOND, effectiveAt: waiting.effectiveAt.toISOString() }]);
  });

  test("only an owner of this account cancels; cancelled, the wallet stays and nothing is left waiting", async () => {
    for (const user of [developer, viewer]) expect((await post(user, "/dashboard/wallets/mainnet-anvil/cancel")).status).toBe(403);
    expect((await post(stranger, "/dashboard/wallets/mainnet-anvil/cancel")).status).toBe(409);
    expect((await dashboardRequest(api, "/dashboard/wallets/mainnet-anvil/cancel", { form: { csrf: owner.csrf } })).status).toBe(401);
    expect((await dashboardRequest(api, "/dashboard/wallets/mainnet-anvil/cancel", { cookie: live(owner), form: {} })).status).toBe(403);
    expect((await post(owner, "/dashboard/wallets/anvil/cancel")).status).toBe(404);
    expect((await scheduledWallets(api.db, acme.id)).size).toBe(1);
    expect((await post(owner, "/dashboard/wallets/mainnet-anvil/cancel")).status).toBe(303);
    expect([await wallet(), (await scheduledWallets(api.db, acme.id)).size]).toEqual([FIRST, 0]);
    expect((await post(owner, "/dashboard/wallets/mainnet-anvil/cancel")).status).toBe(409);
  });

  test("once due, the new wallet is read at once (payment creation too), then made final once, audited and announced", async () => {
    expect((await change(owner, THIRD)).status).toBe(303);
    await makeDue();
    expect(await wallet()).toBe(THIRD);
    expect((await findMerchantSettings(api.db, [acme.id]))[0]!.wallets.get(networkId)).toBe(THIRD);
    expect((await post(owner, "/dashboard/wallets/mainnet-anvil/cancel")).status).toBe(409);
    expect(await applyDueWalletChanges(api)).toBe(1);
    expect(await applyDueWalletChanges(api)).toBe(0);
    const [row] = await api.db.select().from(settlementWallets).where(and(eq(settlementWallets.merchantId, acme.id), eq(settlementWallets.networkId, networkId)));
    expect([row!.address, row!.pendingAddress, row!.pendingEffectiveAt]).toEqual([THIRD, null, null]);
    const applied = await api.db.select().from(dashboardAudit).where(eq(dashboardAudit.action, "settlement_wallet.change_applied"));
    expect(applied.map((a) => [a.userId, a.details])).toEqual([[null, { network: "mainnet-anvil", from: FIRST, to: THIRD, requestedBy: applied[0]!.details.requestedBy }]]);
    expect(applied[0]!.details.requestedBy).toBeString();
    expect(await changes()).toEqual([
      "live settlement_wallet.delay_changed",
      "live settlement_wallet.changed",
      "live settlement_wallet.change_scheduled",
      "test settlement_wallet.changed",
      "test settlement_wallet.changed",
      "live settlement_wallet.change_cancelled",
      "live settlement_wallet.change_scheduled",
      "live settlement_wallet.change_applied",
    ]);
  });

  test("a change due but not yet final is kept when the next is made", async () => {
    expect((await change(owner, FIRST)).status).toBe(303);
    await makeDue();
    expect((await change(owner, SECOND)).status).toBe(303);
    expect(await wallet()).toBe(FIRST);
    expect((await scheduledWallets(api.db, acme.id)).get(networkId)!.address).toBe(SECOND);
  });
});

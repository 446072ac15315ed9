import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { announcePaymentChanges } from "../../db/paymentChanges.ts";
import { dashboardSessions, payments } from "../../db/schema/index.ts";
import { dashboardRequest, OWN_ORIGIN, signedInUser, type DashboardUser } from "../../harness/dashboard.ts";
import { anvilNetwork } from "../../harness/fixtures.ts";
import { insertPaymentRows, paymentRowFactory } from "../../harness/paymentRows.ts";
import { sseReader } from "../../harness/sseReader.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * The payments list follows one stream of its open payments' changes, fed by the checkout's
 * change hub (writers' NOTIFY): money arriving is announced without a reload. Only the
 * account's own payments of the mode shown are followed. Real Postgres (LISTEN/NOTIFY) and Redis.
 */
let api: TestApi;
let acme: TestMerchant;
let rival: TestMerchant;
let owner: DashboardUser;
let stranger: DashboardUser;
let open: string[];
let completed: string;
let theirs: string;

const changes = (user: DashboardUser | null, ids: string[]) =>
  api.app.handle(new Request(`${OWN_ORIGIN}/dashboard/payments/changes?ids=${ids.join(",")}`, { headers: user ? { cookie: user.cookie } : {} }));
/** What a settlement writer does: the change and its NOTIFY, in one transaction. */
const moneyArrives = (id: string, received: bigint) =>
  api.db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    await tx.update(payments).set({ amountReceived: received, status: "confirming" }).where(eq(payments.id, id));
    await announcePaymentChanges(tx, [id]);
  });

beforeAll(async () => {
  api = await createTestApi({ networks: [anvilNetwork("http://127.0.0.1:1")] });
  acme = await api.seedMerchant("Acme");
  rival = await api.seedMerchant("Rival");
  const row = paymentRowFactory(api.config);
  const rows = await insertPaymentRows(api.db, [row(acme.id, { status: "pending" }), row(acme.id, { status: "pending" }), row(acme.id, { status: "completed" })]);
  open = [rows[0]!.id!, rows[1]!.id!];
  completed = rows[2]!.id!;
  theirs = (await insertPaymentRows(api.db, [row(rival.id, { status: "pending" })]))[0]!.id!;
  owner = await signedInUser(api, acme.id, "owner@acme-live.test", "owner");
  stranger = await signedInUser(api, rival.id, "owner@rival-live.test", "owner");
}, 60_000);

afterAll(async () => {
  await api?.close();
});

describe("the payments list, live", () => {
  test("the list names the stream of its open payments and is fetched again on each change, not every 5 s", async () => {
    const page = await dashboardRequest(api, "/dashboard/payments", { cookie: owner.cookie });
    const stream = /data-stream="([^"]+)"/.exec(page.text)?.[1];
    expect(stream).toBeDefined();
    const ids = new URL(stream!.replaceAll("&amp;", "&"), OWN_ORIGIN).searchParams.get("ids")!.split(",");
    expect(ids.sort()).toEqual([...open].sort());
    expect(page.text).toContain('hx-trigger="payments-changed from:body, every 30s"');
    expect(page.text).not.toContain("every 5s");
  });

  test("money arriving on a followed payment is announced at once, with its id", async () => {
    const response = await changes(owner, [...open, completed]);
    expect([response.status, response.headers.get("content-type")]).toEqual([200, "text/event-stream; charset=utf-8"]);
    const events = sseReader(response);
    // Nothing changed yet: nothing is sent.
    expect(await events.next(300)).toBeNull();
    await moneyArrives(open[1]!, 1_000n);
    const event = await events.next(3_000);
    expect(event).toEqual({ event: "payment", data: JSON.stringify({ id: open[1] }) });
    await events.cancel();
  });

  test("another account's payments are never followed; no session, bad ids: refused", async () => {
    // The stranger asks for this account's payments: nothing of them is followed.
    expect((await changes(stranger, open)).status).toBe(204);
    const mixed = await changes(stranger, [theirs, open[0]!]);
    expect(mixed.status).toBe(200);
    const events = sseReader(mixed);
    await moneyArrives(open[0]!, 2_000n);
    expect(await events.next(1_000)).toBeNull();
    await events.cancel();
    const none = await changes(null, open);
    expect([none.status, none.headers.get("location")?.startsWith("/dashboard/sign-in")]).toEqual([303, true]);
    expect((await changes(owner, ["not-an-id"])).status).toBe(400);
    expect((await changes(owner, Array.from({ length: 26 }, () => open[0]!))).status).toBe(400);
  });

  test("one session holds at most 4 streams at once (the hub's slots are shared with every checkout page)", async () => {
    const held = await Promise.all(Array.from({ length: 4 }, () => changes(owner, open)));
    expect(held.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await changes(owner, open)).status).toBe(429);
    await held[0]!.body!.cancel();
    await Bun.sleep(50);
    const again = await changes(owner, open);
    expect(again.status).toBe(200);
    for (const response of [...held.slice(1), again]) await response.body!.cancel();
  });

  test("following changes does not keep an unattended session alive", async () => {
    const before = (await api.db.select().from(dashboardSessions))
      .map((s) => s.lastSeenAt.getTime())
      .sort()
      .at(-1)!;
    await api.db.update(dashboardSessions).set({ lastSeenAt: new Date(before - 60_000) });
    const response = await changes(owner, open);
    await response.body?.cancel();
    const after = await api.db.select().from(dashboardSessions);
    expect(after.every((s) => s.lastSeenAt.getTime() === before - 60_000)).toBe(true);
  });
});

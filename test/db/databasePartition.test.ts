import { afterAll, beforeAll, expect, test } from "bun:test";
import { createDb } from "../../db/client.ts";
import { startSilentProxy, type SilentProxy } from "../../harness/silentProxy.ts";
import { createTestDatabase, type TestDatabase } from "../../harness/database.ts";
import { createTestApi, type TestApi } from "../../harness/testApi.ts";

/**
 * Issue 16: a database that goes silent (a partition, a failover that moved its address:
 * packets dropped, no reset) left every query waiting for ever, and the API's requests
 * with them. A role's pool is probed: after the probe's wait without an answer, its
 * connections are dropped (what waited fails as a lost connection, 503 in the API) and new
 * ones are opened, so the same process serves again once the database answers.
 */
let database: TestDatabase;
let proxy: SilentProxy;
beforeAll(async () => {
  database = await createTestDatabase();
  proxy = await startSilentProxy({ host: "127.0.0.1", port: Number(new URL(database.url).port || 5432) });
});
afterAll(async () => {
  await proxy?.stop();
  await database?.drop();
});

/** How a promise settles, or "waiting" after `ms`. */
const within = (p: Promise<unknown>, ms: number) =>
  Promise.race([
    p.then(
      () => "answered",
      (error: { code?: string }) => `failed ${error.code ?? error}`,
    ),
    Bun.sleep(ms).then(() => "waiting"),
  ]);

test("a silent database fails the queries waiting on it within the probe's wait, and the same pool serves once it answers", async () => {
  const replaced: number[] = [];
  const handle = createDb(proxy.via(database.url), { max: 3, probe: { everyMs: 200, timeoutMs: 1_000, onReplace: (ms) => replaced.push(ms) } });
  const bare = createDb(proxy.via(database.url), { max: 1 });
  try {
    expect(await handle.client`select 1 as one`).toEqual([{ one: 1 }]);
    expect(await bare.client`select 1 as one`).toEqual([{ one: 1 }]);
    proxy.silence();
    const [probed, unprobed] = await Promise.all([within(handle.client`select pg_sleep(0)`, 4_000), within(bare.client`select pg_sleep(0)`, 4_000)]);
    // Without the probe the query is still waiting (the defect); with it, it fails as a lost connection.
    expect(unprobed).toBe("waiting");
    expect(probed).toMatch(/^failed ERR_POSTGRES_CONNECTION/);
    expect(replaced.length).toBeGreaterThan(0);
    // While silent, a new query fails too (a connection that cannot be made in time), never hangs.
    expect(await within(handle.client`select 2`, 4_000)).toMatch(/^failed /);
    proxy.speak();
    let back = "";
    for (let i = 0; i < 30 && back !== "answered"; i++) {
      back = await within(handle.client`select 3`, 2_000);
      if (back !== "answered") await Bun.sleep(200);
    }
    expect(back).toBe("answered");
  } finally {
    proxy.speak();
    await Promise.race([Promise.all([handle.close(), bare.close()]), Bun.sleep(2_000)]);
  }
}, 30_000);

test("the API answers 503 within seconds while its database is silent (a merchant's list), and serves again after", async () => {
  const api: TestApi = await createTestApi({
    database: { url: proxy.via(database.url), name: database.name, drop: async () => {} },
    databaseProbe: { everyMs: 200, timeoutMs: 1_000, onReplace: () => {} },
  });
  try {
    const merchant = await api.seedMerchant();
    const status = () => api.request("/api/v1/payments/merchant/list", { headers: { "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret } });
    expect((await status()).status).toBe(200);
    proxy.silence();
    const started = Date.now();
    const during = await status();
    expect({ status: during.status, error: during.body.error }).toEqual({ status: 503, error: "service_unavailable" });
    expect(Date.now() - started).toBeLessThan(5_000);
    proxy.speak();
    let after = 0;
    for (let i = 0; i < 30 && after !== 200; i++) {
      after = (await status()).status;
      if (after !== 200) await Bun.sleep(200);
    }
    expect(after).toBe(200);
  } finally {
    proxy.speak();
    await api.close();
  }
}, 60_000);

import { afterAll, beforeAll, expect, test } from "bun:test";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { merchantWallet, operatorKey, startPaymentChain, type PaymentChain } from "../../harness/paymentChain.ts";
import { startPrivatePostgres, type PrivatePostgres } from "../../harness/privatePostgres.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * Issue 16, "Postgres going down → a few 500s before 503": traffic on every kind of route
 * (creates, status reads, the merchant's list, the public view, health) while the
 * database (an embedded PostgreSQL of this test's own) is stopped with a fast shutdown
 * and started again. Every answer is 2xx, 4xx or 503, never 500; the same API process
 * serves again once the database is back.
 */
let chain: PaymentChain;
let pg: PrivatePostgres;
let api: TestApi;
let merchant: TestMerchant;
let known: string;

beforeAll(async () => {
  [chain, pg] = await Promise.all([startPaymentChain(), startPrivatePostgres()]);
  api = await createTestApi({
    env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey },
    database: { url: pg.url, name: "faults", drop: async () => {} },
  });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
  const created = await api.request("/api/v1/payments/create", { headers: { "x-public-key": merchant.publicKey }, body: { amount: "1", currency: "USDC", network: "anvil" } });
  expect(created.status).toBe(201);
  known = created.body.payment.id;
}, 120_000);

afterAll(async () => {
  const bounded = (p: Promise<unknown> | undefined) => Promise.race([p, Bun.sleep(10_000)]);
  await bounded(api?.close());
  await bounded(chain?.stop());
  await bounded(pg?.destroy());
});

let order = 0;
const routes: Array<{ name: string; call: () => ReturnType<TestApi["request"]> }> = [
  {
    name: "create",
    call: () => api.request("/api/v1/payments/create", { headers: { "x-public-key": merchant.publicKey }, body: { amount: "2", currency: "USDC", network: "anvil", orderId: `pg-${++order}` } }),
  },
  { name: "status", call: () => api.request(`/api/v1/payments/${known}/status`, { headers: { "x-public-key": merchant.publicKey } }) },
  { name: "read", call: () => api.request(`/api/v1/payments/${known}`, { headers: { "x-public-key": merchant.publicKey } }) },
  { name: "public", call: () => api.request(`/api/v1/payments/public/${known}`) },
  { name: "list", call: () => api.request("/api/v1/payments/merchant/list", { headers: { "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret } }) },
  { name: "wallets", call: () => api.request("/api/v1/merchants/wallets", { headers: { "x-public-key": merchant.publicKey } }) },
  { name: "health", call: () => api.request("/api/health") },
];

test("a fast shutdown mid-traffic answers 503 (never 500) and the same process recovers", async () => {
  const answers = new Map<string, Map<number, number>>();
  const bad: string[] = [];
  let phase: "before" | "down" | "after" = "before";
  let running = true;
  let lastFailure = 0;
  const loops = routes.flatMap((route) =>
    [0, 1].map(async () => {
      while (running) {
        const r = await route.call();
        const counts = answers.get(route.name) ?? new Map<number, number>();
        counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
        answers.set(route.name, counts);
        if (r.status >= 500 && r.status !== 503) bad.push(`${phase} ${route.name} ${r.status} ${JSON.stringify(r.body)}`);
        if (r.status === 503 && route.name !== "health") lastFailure = Date.now();
        await Bun.sleep(5);
      }
    }),
  );
  await Bun.sleep(500);
  phase = "down";
  await pg.stop();
  await Bun.sleep(2_000);
  phase = "after";
  await pg.start();
  const back = Date.now();
  // Recovered: a full second of traffic with no 503 outside health, within 30 s.
  while (Date.now() - back < 30_000 && (lastFailure === 0 || Date.now() - Math.max(lastFailure, back) < 1_000)) await Bun.sleep(100);
  running = false;
  await Promise.all(loops);

  expect(bad).toEqual([]);
  const summary = Object.fromEntries([...answers].map(([name, counts]) => [name, Object.fromEntries(counts)]));
  // The outage was seen (503s) and recovered from: every route answered 2xx again.
  expect(routes.filter((r) => !answers.get(r.name)?.get(503)).map((r) => r.name)).toEqual([]);
  expect(Date.now() - back).toBeLessThan(30_000);
  const final = await Promise.all(routes.map(async (r) => [r.name, (await r.call()).status]));
  expect(Object.fromEntries(final)).toEqual({ create: 201, status: 200, read: 200, public: 200, list: 200, wallets: 200, health: 200 });
  if (process.env.DEBUG_FAULTS) console.log(summary);
}, 90_000);

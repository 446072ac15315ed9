import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { payments } from "../../db/schema/index.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { anvilNetwork } from "../../harness/fixtures.ts";
import { startPrivateRedis, type PrivateRedis } from "../../harness/privateRedis.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * Issue 41, "the public key cannot exhaust the service": a stranger holding a shop's public
 * key (it ships in every checkout bundle) floods creates. On the service's real defaults,
 * over HTTP to a listening server (the connection's IP counts), against real Postgres and
 * Redis. Creation signs and derives addresses without calling the chain (its RPC answers nothing).
 */
const network = anvilNetwork("http://127.0.0.1:1", { settlementContract: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0", forwarderFactory: "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9" });
const WALLET = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const OPERATOR_PRIVATE_KEY = `0x${"11".repeat(32)}`;

async function apiWith(env: Record<string, string> = {}) {
  const api = await createTestApi({ limits: "defaults", networks: [network], env: { OPERATOR_PRIVATE_KEY, ...env } });
  return api;
}

async function merchantOf(api: TestApi, name: string): Promise<TestMerchant> {
  const m = await api.seedMerchant(name);
  await setSettlementWallet(api.db, m.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, WALLET);
  return m;
}

const pk = (m: TestMerchant) => ({ "x-public-key": m.publicKey });
const sk = (m: TestMerchant) => ({ "x-api-key": m.testApiKey, "x-api-secret": m.testApiSecret });
const createBody = (i: number | string) => ({ amount: "1", currency: "USDC", network: "anvil", orderId: `flood-${i}` });

describe("a flood of creates from one public key, over HTTP, on the default limits", () => {
  let api: TestApi;
  let merchant: TestMerchant;
  let neighbour: TestMerchant;
  let base: string;

  beforeAll(async () => {
    api = await apiWith();
    [merchant, neighbour] = await Promise.all([merchantOf(api, "Flooded"), merchantOf(api, "Neighbour")]);
    api.app.listen({ hostname: "127.0.0.1", port: 0 });
    base = `http://127.0.0.1:${api.app.server!.port}`;
  }, 60_000);
  afterAll(async () => {
    await api?.app.stop();
    await api?.close();
  });

  const call = async (path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) => {
    const response = await fetch(`${base}${path}`, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers: { "content-type": "application/json", ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };

  test("1,500 creates in a burst meet 429s with Retry-After and RateLimit headers; meanwhile a key + secret stats read answers 200", async () => {
    const statuses = new Map<number, number>();
    const refusals: Array<{ headers: Headers; body: any }> = [];
    let next = 0;
    const flood = Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < 1_500) {
          const r = await call("/api/v1/payments/create", { headers: pk(merchant), body: createBody(next++) });
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          if (r.status === 429 && refusals.length < 50) refusals.push(r);
        }
      }),
    );
    // The merchant's own server, during the flood: its key + secret budget is its own.
    await Bun.sleep(50);
    const stats = await call("/api/v1/payments/merchant/stats", { headers: sk(merchant) });
    await flood;
    expect(stats.status).toBe(200);
    expect(stats.body.success).toBe(true);

    // The default budget: 60 creates a minute per public key (and per address).
    expect(statuses.get(201)).toBe(60);
    expect(statuses.get(429)).toBe(1_440);
    expect([...statuses.keys()].sort()).toEqual([201, 429]);
    expect(await api.db.$count(payments, eq(payments.merchantId, merchant.id))).toBe(60);

    for (const r of refusals) {
      const retryAfter = Number(r.headers.get("retry-after"));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(r.headers.get("ratelimit-policy")).toMatch(/^"(ip-)?public-key-creates";q=60;w=60$/);
      expect(r.headers.get("ratelimit")).toBe(`${r.headers.get("ratelimit-policy")!.split(";")[0]};r=0;t=${retryAfter}`);
      expect(r.body).toEqual({ success: false, error: "rate_limited", message: expect.stringMatching(/^Too many creates .*: at most 60 every 60 s\. Retry after \d+ s\.$/) });
    }
  }, 60_000);

  test("after the flood: the merchant's key + secret still creates; the public key still reads (reads have their own budget)", async () => {
    const created = await call("/api/v1/payments/create", { headers: sk(merchant), body: createBody("server-side") });
    expect(created.status).toBe(201);
    const read = await call(`/api/v1/payments/${created.body.payment.id}/status`, { headers: pk(merchant) });
    expect(read.status).toBe(200);
    // Deposits, cross-chain and sandbox creates spend the same create budget.
    const deposit = await call("/api/v1/deposits/create", { headers: pk(merchant), body: createBody("deposit") });
    expect(deposit.status).toBe(429);
    const sandbox = await call("/api/v1/sandbox/payments", { headers: pk(merchant), body: createBody("sandbox") });
    expect(sandbox.status).toBe(429);
    expect((await call("/api/payments/cross-chain/create", { headers: pk(merchant), body: { amount: "1", originChainId: 1, originCurrency: "USDC" } })).status).toBe(429);
  });

  test("another shop's public key from the flooding address is refused too: the address has its own budget", async () => {
    const r = await call("/api/v1/payments/create", { headers: pk(neighbour), body: createBody("neighbour") });
    expect(r.status).toBe(429);
    expect(r.headers.get("ratelimit-policy")).toBe('"ip-public-key-creates";q=60;w=60');
  });
});

describe("reads: let through at once far from the limit, never past it", () => {
  let api: TestApi;
  let merchant: TestMerchant;
  beforeAll(async () => {
    api = await apiWith({ RATE_LIMIT_PUBLIC_KEY_READS: "30" });
    merchant = await merchantOf(api, "Polling shop");
  }, 60_000);
  afterAll(async () => {
    await api?.close();
  });

  test("30 reads a window answer, the 31st and later 429 (however their points reached Redis); key + secret reads go on", async () => {
    const created = await api.request("/api/v1/payments/create", { headers: sk(merchant), body: createBody("polled") });
    const path = `/api/v1/payments/${created.body.payment.id}/status`;
    const statuses: number[] = [];
    for (let i = 0; i < 45; i++) {
      statuses.push((await api.request(path, { headers: pk(merchant) })).status);
      // Some of them after a flush of the reads let through (every 100 ms).
      if (i === 15) await Bun.sleep(150);
    }
    expect(statuses).toEqual([...Array(30).fill(200), ...Array(15).fill(429)]);
    const refused = await api.request(path, { headers: pk(merchant) });
    expect(refused.headers.get("ratelimit-policy")).toBe('"public-key-reads";q=30;w=60');
    expect((await api.request(path, { headers: sk(merchant) })).status).toBe(200);
  });

  test("two API processes share the budget through Redis: their reads add up to it, not to twice it", async () => {
    const shop = await merchantOf(api, "Two processes");
    // A second app on the same database and Redis prefix: another API process.
    const second = await createTestApi({
      limits: "defaults",
      networks: [network],
      database: { url: api.databaseUrl, name: "", drop: async () => {} },
      env: { OPERATOR_PRIVATE_KEY, RATE_LIMIT_PUBLIC_KEY_READS: "30", QUEUE_PREFIX: api.config.redis.prefix },
    });
    try {
      const created = await api.request("/api/v1/payments/create", { headers: sk(shop), body: createBody("two-processes") });
      const path = `/api/v1/payments/${created.body.payment.id}/status`;
      const read = async (app: TestApi) => (await app.request(path, { headers: pk(shop) })).status;
      const first: number[] = [];
      for (let i = 0; i < 18; i++) first.push(await read(api));
      await Bun.sleep(150); // the first process's reads reach Redis
      const second_: number[] = [];
      for (let i = 0; i < 18; i++) second_.push(await read(second));
      expect(first).toEqual(Array(18).fill(200));
      expect(second_).toEqual([...Array(12).fill(200), ...Array(6).fill(429)]);
    } finally {
      await second.close();
    }
  });
});

describe("client IP behind a proxy the operator runs (RATE_LIMIT_CLIENT_IP_HEADER)", () => {
  let api: TestApi;
  let merchants: TestMerchant[];
  beforeAll(async () => {
    api = await apiWith({ RATE_LIMIT_CLIENT_IP_HEADER: "X-Forwarded-For", RATE_LIMIT_IP_CREATES: "3" });
    merchants = await Promise.all([0, 1, 2, 3].map((i) => merchantOf(api, `Shop ${i}`)));
  }, 60_000);
  afterAll(async () => {
    await api?.close();
  });

  test("per address, across keys: the last X-Forwarded-For entry counts (what the client wrote before it does not)", async () => {
    const from = (ip: string, m: TestMerchant, i: number) =>
      api.request("/api/v1/payments/create", { headers: { ...pk(m), "x-forwarded-for": ip }, body: createBody(`${ip}-${i}`) });
    // One address, three shops' keys: 3 creates, then refused whatever key it holds.
    for (let i = 0; i < 3; i++) expect((await from("203.0.113.7", merchants[i]!, i)).status).toBe(201);
    const refused = await from("203.0.113.7", merchants[3]!, 3);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("ratelimit-policy")).toBe('"ip-public-key-creates";q=3;w=60');
    // A spoofed first entry changes nothing: the proxy's own (last) entry is the address.
    expect((await from("198.51.100.1, 203.0.113.7", merchants[3]!, 4)).status).toBe(429);
    // Another address has its own budget.
    expect((await from("203.0.113.8", merchants[3]!, 5)).status).toBe(201);
  });
});

describe("Redis down: the limits fall back to each process's memory, and creates still answer", () => {
  let redis: PrivateRedis;
  let api: TestApi;
  let merchant: TestMerchant;
  beforeAll(async () => {
    redis = await startPrivateRedis();
    api = await apiWith({ REDIS_URL: redis.url, RATE_LIMIT_PUBLIC_KEY_CREATES: "5" });
    merchant = await merchantOf(api, "Outage");
  }, 60_000);
  afterAll(async () => {
    // Back up first: the queues close through it.
    if (redis && !redis.running()) {
      await redis.start();
      await Bun.sleep(2_500); // the clients' reconnect backoff
    }
    await api?.close();
    await redis?.stop();
  });

  test("with Redis killed, creates answer 201 promptly up to the budget, then 429", async () => {
    // Counted in Redis while it is up.
    expect((await api.request("/api/v1/payments/create", { headers: pk(merchant), body: createBody("up") })).status).toBe(201);
    await redis.kill();
    const answers: number[] = [];
    for (let i = 0; i < 7; i++) {
      const started = performance.now();
      const r = await api.request("/api/v1/payments/create", { headers: pk(merchant), body: createBody(`down-${i}`) });
      expect(performance.now() - started).toBeLessThan(2_000);
      answers.push(r.status);
    }
    // The process's own count starts afresh: 5 more, then refused.
    expect(answers).toEqual([201, 201, 201, 201, 201, 429, 429]);
  }, 30_000);
});

describe("RATE_LIMITS=off", () => {
  test("no request is refused for volume", async () => {
    const api = await apiWith({ RATE_LIMITS: "off", RATE_LIMIT_PUBLIC_KEY_CREATES: "1" });
    try {
      const m = await merchantOf(api, "Unlimited");
      for (let i = 0; i < 3; i++) expect((await api.request("/api/v1/payments/create", { headers: pk(m), body: createBody(`off-${i}`) })).status).toBe(201);
    } finally {
      await api.close();
    }
  });
});

import { buildConfig } from "../../plugins/config.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { merchants, payments } from "../../db/schema/index.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";

import { createLogger } from "../../config/logger.ts";
import { RateUnavailableError } from "../../domain/errors.ts";
import { createHttpRatesProvider, createRatesProvider } from "../../rates/index.ts";
import { startDeadRpc } from "../../harness/fixtures.ts";
import { merchantWallet, operatorKey, startPaymentChain, type PaymentChain } from "../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * Exchange rates: the HTTP provider against a loopback server answering open.er-api.com's
 * shape (timeouts, bad JSON, errors, staleness, caching), `GET /currency/rates` with both
 * providers, and payments priced in fiat converted at creation (real app, real anvil).
 */

type Reply = { status?: number; body?: unknown; raw?: string; delayMs?: number };

/** A loopback rates source whose next answers the test decides; counts requests. */
function startRatesServer() {
  let reply: Reply = {};
  let requests = 0;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch() {
      requests++;
      const r = reply;
      if (r.delayMs) await Bun.sleep(r.delayMs);
      return new Response(r.raw ?? JSON.stringify(r.body ?? {}), { status: r.status ?? 200, headers: { "content-type": "application/json" } });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/v6/latest/USD`,
    host: `127.0.0.1:${server.port}`,
    set: (r: Reply) => void (reply = r),
    get requests() {
      return requests;
    },
    stop: () => server.stop(true),
  };
}

/** What open.er-api.com answers (trimmed), last updated `ageSeconds` ago. */
const erApi = (ageSeconds: number, rates: Record<string, number> = { USD: 1, EUR: 0.92, NGN: 1550, GBP: 0.79 }) => ({
  result: "success",
  provider: "https://www.exchangerate-api.com",
  documentation: "https://www.exchangerate-api.com/docs/free",
  time_last_update_unix: Math.floor(Date.now() / 1000) - ageSeconds,
  time_next_update_unix: Math.floor(Date.now() / 1000) - ageSeconds + 86_400,
  base_code: "USD",
  rates,
});

let source: ReturnType<typeof startRatesServer>;
beforeAll(() => {
  source = startRatesServer();
});
afterAll(() => source?.stop());

describe("HTTP rates provider against a loopback server", () => {
  const provider = (over: Partial<Parameters<typeof createHttpRatesProvider>[0]> = {}) =>
    createHttpRatesProvider({ url: source.url, timeoutMs: 300, cacheTtlMs: 60_000, maxAgeMs: 3_600_000, retryAfterMs: 0, ...over });

  test("reads the documented shape: decimal strings, the source's update time, not stale", async () => {
    // The source's time as the body says it (read again after the fetch, a second could have turned).
    const body = erApi(120);
    source.set({ body });
    const snapshot = await provider().current();
    expect(snapshot).toEqual({
      base: "USD",
      rates: { USD: "1", EUR: "0.92", NGN: "1550", GBP: "0.79" },
      updatedAt: new Date(body.time_last_update_unix * 1000),
      source: source.host,
      stale: false,
    });
  });

  test("caches for the TTL, then asks again; concurrent callers share one request", async () => {
    source.set({ body: erApi(0) });
    let now = Date.now();
    const p = provider({ now: () => new Date(now) });
    const before = source.requests;
    await Promise.all([p.current(), p.current(), p.current()]);
    expect(source.requests - before).toBe(1);
    now += 59_000;
    await p.current();
    expect(source.requests - before).toBe(1);
    source.set({ body: erApi(0, { EUR: 0.93 }) });
    now += 2_000;
    // Past the TTL the cached rates answer at once while the source is asked again.
    expect((await p.current()).rates.EUR).toBe("0.92");
    await Bun.sleep(100);
    expect((await p.current()).rates.EUR).toBe("0.93");
    expect(source.requests - before).toBe(2);
  });

  // BUG: past the TTL every caller waited for the source: with it hanging, a fiat payment's
  // creation (and every stablecoin one of a non-USD merchant) waited out RATES_TIMEOUT_MS.
  test("a hanging source past the TTL: the cached rates answer at once, not after the timeout", async () => {
    source.set({ body: erApi(0) });
    let now = Date.now();
    const p = provider({ now: () => new Date(now), timeoutMs: 3_000, cacheTtlMs: 1_000 });
    await p.current();
    source.set({ body: erApi(0, { EUR: 0.95 }), delayMs: 2_000 });
    now += 2_000;
    const first = await Promise.race([p.current().then((s) => s.rates.EUR), Bun.sleep(1_000).then(() => "waited for the source")]);
    expect(first).toBe("0.92");
  });

  // BUG: a lagging mirror's older copy replaced newer rates, which then read as stale early.
  test("an answer older than the cached rates does not replace them", async () => {
    source.set({ body: erApi(60, { EUR: 0.92 }) });
    let now = Date.now();
    const p = provider({ now: () => new Date(now), cacheTtlMs: 1_000, maxAgeMs: 3_600_000 });
    const newer = await p.current();
    source.set({ body: erApi(3_000, { EUR: 0.9 }) });
    now += 2_000;
    await p.current();
    await Bun.sleep(100);
    expect(await p.current()).toMatchObject({ rates: { EUR: "0.92" }, updatedAt: newer.updatedAt });
  });

  // BUG: a failing source was never logged: the cached rates hid it until every fiat creation was a 503.
  // BUG: whether to ask the source again followed only our fetch time: rates that turned stale by
  // the source's time inside the TTL were served stale (fiat payments refused) for the rest of it.
  test("rates that turn stale inside the TTL are asked for again (after retryAfter), not served stale", async () => {
    source.set({ body: erApi(3_590) });
    let now = Date.now();
    const p = provider({ now: () => new Date(now), retryAfterMs: 5_000 });
    expect((await p.current()).stale).toBe(false);
    source.set({ body: erApi(0) });
    const before = source.requests;
    now += 20_000; // past the maximum age by the source's time, well inside the TTL
    expect((await p.current()).stale).toBe(false);
    expect(source.requests - before).toBe(1);
  });

  test("a failed fetch is logged at warn, naming the source's host", async () => {
    source.set({ status: 401, raw: "{}" });
    const lines: string[] = [];
    const logger = createLogger({ level: "info", destination: { write: (line: string) => void lines.push(line) } });
    const config = buildConfig({ APP_ENV: "test", RATES_PROVIDER: "http", RATES_URL: source.url });
    await createRatesProvider(config, logger).current().catch(() => {});
    const logged = lines.map((l) => JSON.parse(l) as { level: number; msg: string; source: string; err: { message: string } });
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 40, source: source.host, err: { message: "HTTP 401" } });
  });

  test("rates older than the maximum age are stale", async () => {
    source.set({ body: erApi(7_200) });
    const snapshot = await provider({ maxAgeMs: 3_600_000 }).current();
    expect(snapshot.stale).toBe(true);
    expect(snapshot.rates.EUR).toBe("0.92");
  });

  const failures: Array<[string, Reply, RegExp]> = [
    ["a timeout", { body: erApi(0), delayMs: 800 }, /no answer within 300 ms/],
    ["bad JSON", { raw: "{not json" }, /not valid JSON/],
    ["an HTML error page", { raw: "<html>502</html>", status: 502 }, /HTTP 502/],
    ["an error result", { body: { result: "error", "error-type": "unsupported-code" } }, /result "error"/],
    ["another base", { body: { ...erApi(0), base_code: "EUR" } }, /base currency/],
    ["no rates", { body: { result: "success", base_code: "USD" } }, /no rates/],
  ];
  for (const [name, reply, message] of failures) {
    test(`${name} with nothing cached → RateUnavailableError (503) saying why`, async () => {
      source.set(reply);
      const error = await provider()
        .current()
        .then(() => null, (e) => e);
      expect(error).toBeInstanceOf(RateUnavailableError);
      expect(error.status).toBe(503);
      expect(error.message).toMatch(message);
      expect(error.message).toContain(source.host);
    });
  }

  test("a failing source after a good answer: the cached rates are served, and turn stale with age", async () => {
    source.set({ body: erApi(0) });
    let now = Date.now();
    const p = provider({ now: () => new Date(now), cacheTtlMs: 1_000, maxAgeMs: 10_000 });
    expect((await p.current()).stale).toBe(false);
    source.set({ raw: "{broken" });
    now += 5_000;
    const served = await p.current();
    expect(served).toMatchObject({ stale: false, rates: { EUR: "0.92" } });
    now += 10_000;
    expect((await p.current()).stale).toBe(true);
    // The source recovers: fresh again.
    source.set({ body: erApi(0) });
    now = Date.now() + 1_000;
    expect((await p.current()).stale).toBe(false);
  });

  test("after a failure the source is not asked again until retryAfter", async () => {
    source.set({ status: 500, raw: "{}" });
    let now = Date.now();
    const p = provider({ now: () => new Date(now), retryAfterMs: 10_000 });
    const before = source.requests;
    await expect(p.current()).rejects.toBeInstanceOf(RateUnavailableError);
    await expect(p.current()).rejects.toBeInstanceOf(RateUnavailableError);
    expect(source.requests - before).toBe(1);
    source.set({ body: erApi(0) });
    now += 10_001;
    expect((await p.current()).rates.EUR).toBe("0.92");
    expect(source.requests - before).toBe(2);
  });

  test("a source clock ahead of ours does not make rates newer than when we fetched them", async () => {
    source.set({ body: erApi(-3_600) });
    const snapshot = await provider().current();
    expect(snapshot.updatedAt.getTime()).toBeLessThanOrEqual(Date.now());
    expect(snapshot.stale).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------

describe("payments priced in fiat, and GET /currency/rates", () => {
  let chain: PaymentChain;
  let api: TestApi;
  /** Same chain, HTTP provider on the loopback source. */
  let httpApi: TestApi;
  let merchant: TestMerchant;
  let httpMerchant: TestMerchant;

  beforeAll(async () => {
    chain = await startPaymentChain();
    const env = { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey };
    api = await createTestApi({ env: { ...env, RATES_STATIC: "EUR=0.92,NGN=1550,JPY=151.123456789" } });
    httpApi = await createTestApi({
      env: { ...env, RATES_PROVIDER: "http", RATES_URL: source.url, RATES_TIMEOUT_MS: "300", RATES_CACHE_TTL_SECONDS: "1", RATES_MAX_AGE_SECONDS: "3600" },
    });
    merchant = await api.seedMerchant("Fiat");
    httpMerchant = await httpApi.seedMerchant("Fiat over HTTP");
    for (const [a, m] of [[api, merchant], [httpApi, httpMerchant]] as const) {
      await setSettlementWallet(a.db, m.id, a.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
    }
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await httpApi?.close();
    await chain?.stop();
  });

  const create = (b: Record<string, unknown>, a: TestApi = api, m: TestMerchant = merchant) =>
    a.request("/api/v1/payments/create", { headers: { "x-public-key": m.publicKey }, body: { network: "anvil", orderId: `order-${randomUUID()}`, ...b } });

  test("GET /currency/rates (static): no credentials, units per USD as strings, stablecoins 1", async () => {
    for (const path of ["/api/v1/currency/rates", "/api/currency/rates"]) {
      const response = await api.request(path);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        success: true,
        base: "USD",
        rates: { DAI: "1", EUR: "0.92", JPY: "151.123456789", NGN: "1550", USD: "1", USDC: "1", USDT: "1" },
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        source: "static",
        stale: false,
      });
    }
  });

  test("EUR → USDC (6 decimals): rounded up, the rate and the fiat amount stored", async () => {
    const response = await create({ amount: "100", currency: "EUR", token: "USDC" });
    expect(response.status).toBe(201);
    const p = response.body.payment;
    // 100 / 0.92 = 108.695652173… → 108.695653
    expect(p).toMatchObject({ amount: "108.695653", amountRemaining: "108.695653", currency: "USDC", token: "USDC", fiatAmount: "100", fiatCurrency: "EUR", exchangeRate: "0.92" });
    expect(p.paymentUri).toEndWith("uint256=108695653");
    expect(p.intent.amount).toBe("108695653");
    const [row] = await api.db.select().from(payments).where(eq(payments.id, p.id));
    expect(row).toMatchObject({ amount: 108_695_653n, fiatAmount: "100", fiatCurrency: "EUR", exchangeRate: "0.92", exchangeRateSource: "static" });
    expect(row!.exchangeRateAt).toBeInstanceOf(Date);
    // The full read shows the same.
    const read = await api.request(`/api/v1/payments/${p.id}`, { headers: { "x-public-key": merchant.publicKey } });
    expect(read.body.payment).toMatchObject({ amount: "108.695653", fiatAmount: "100", fiatCurrency: "EUR", exchangeRate: "0.92" });
  });

  test.each([
    // [amount, currency, token, expected token amount]
    ["10000", "NGN", "DAI", "6.451612903225806452"], // 6.4516129032258064516… → up at 18 decimals
    ["1", "NGN", "USDC", "0.000646"], // 0.000645161… → 0.000646
    ["1550", "NGN", "USDT", "1"], // exact
    ["92", "EUR", "DAI", "100"], // exact at 18 decimals
    ["0.01", "EUR", "DAI", "0.010869565217391305"], // 0.0108695652173913043… → up
    ["10.1234567", "USD", "USDC", "10.123457"], // USD is 1:1, still rounded up
    ["10.12", "usd", "USDC", "10.12"],
    ["1", "JPY", "USDC", "0.006618"], // 1 / 151.123456789 = 0.0066171…
    [12.5, "EUR", "USDC", "13.586957"], // a JSON number; 13.58695652… → up
  ])("%p %s paid in %s → %s", async (amount, currency, token, expected) => {
    const response = await create({ amount, currency, token });
    expect(response.status).toBe(201);
    expect(response.body.payment).toMatchObject({ amount: expected, token, fiatCurrency: String(currency).toUpperCase() });
  });

  test("request errors → 400 naming the field", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ amount: "10", currency: "EUR" }, "token"], // fiat needs the stablecoin to pay in
      [{ amount: "10", currency: "USDT", token: "USDC" }, "currency"], // two different stablecoins
      [{ amount: "10", currency: "EURO", token: "USDC" }, "currency"], // not a currency code
      [{ amount: "10", currency: "EUR", token: "WBTC" }, "token"],
      [{ amount: "1.0000000000000000001", currency: "EUR", token: "USDC" }, "amount"],
      [{ amount: "-5", currency: "EUR", token: "USDC" }, "amount"],
      [{ amount: "0", currency: "EUR", token: "USDC" }, "amount"],
    ];
    for (const [b, field] of cases) {
      const response = await create(b);
      expect(response.status).toBe(400);
      expect(response.body.message).toContain(`'${field}'`);
    }
  });

  // BUG: a code the (fresh) rates do not price was a 503: a client retries that for good.
  test("a currency the fresh rates do not price → 400 naming 'currency' and what is priced, no payment", async () => {
    const orderId = `order-${randomUUID()}`;
    const response = await create({ amount: "10", currency: "GBP", token: "USDC", orderId });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, error: "invalid_request" });
    expect(response.body.message).toStartWith("Invalid field 'currency': GBP has no exchange rate from ");
    expect(response.body.message).toContain("price in USD, a stablecoin, or one of: EUR");
    expect(await api.db.select().from(payments).where(eq(payments.orderId, orderId))).toHaveLength(0);
  });

  test("a merchant settling in NGN: each payment keeps the NGN rate of its creation for statistics; a USD merchant's keep none", async () => {
    const naira = await api.seedMerchant("Settles in NGN");
    await api.db.update(merchants).set({ settlementCurrency: "NGN" }).where(eq(merchants.id, naira.id));
    await setSettlementWallet(api.db, naira.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
    const stored = async (b: Record<string, unknown>, m: TestMerchant) => {
      const response = await create(b, api, m);
      expect(response.status).toBe(201);
      const [row] = await api.db.select().from(payments).where(eq(payments.id, response.body.payment.id));
      return { settlementCurrency: row!.settlementCurrency, settlementRate: row!.settlementRate };
    };
    const ngn1550 = { settlementCurrency: "NGN", settlementRate: "1550" };
    expect(await stored({ amount: "10", currency: "USDC" }, naira)).toEqual(ngn1550);
    expect(await stored({ amount: "15500", currency: "NGN", token: "USDC" }, naira)).toEqual(ngn1550);
    expect(await stored({ amount: "92", currency: "EUR", token: "USDC" }, naira)).toEqual(ngn1550);
    expect(await stored({ amount: "10", currency: "USDC" }, merchant)).toEqual({ settlementCurrency: null, settlementRate: null });
    expect(await stored({ amount: "92", currency: "EUR", token: "USDC" }, merchant)).toEqual({ settlementCurrency: null, settlementRate: null });
  });

  test("HTTP provider: fresh rates price payments; GET /currency/rates names the source", async () => {
    source.set({ body: erApi(60) });
    const rates = await httpApi.request("/api/v1/currency/rates");
    expect(rates.status).toBe(200);
    expect(rates.body).toMatchObject({ success: true, base: "USD", source: source.host, stale: false, rates: { EUR: "0.92", NGN: "1550", GBP: "0.79", USDC: "1", USD: "1" } });
    const response = await create({ amount: "79", currency: "GBP", token: "USDC" }, httpApi, httpMerchant);
    expect(response.status).toBe(201);
    expect(response.body.payment).toMatchObject({ amount: "100", fiatCurrency: "GBP", exchangeRate: "0.79" });
    const [row] = await httpApi.db.select().from(payments).where(eq(payments.id, response.body.payment.id));
    expect(row!.exchangeRateSource).toBe(source.host);
  });

  test("HTTP provider: stale rates are reported, and a fiat payment is refused with 503 (never a wrong amount)", async () => {
    // A process whose source has only had rates two hours old (an answer older than rates
    // already cached would not replace them).
    source.set({ body: erApi(7_200) });
    const httpApi = await createTestApi({
      env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey, RATES_PROVIDER: "http", RATES_URL: source.url, RATES_TIMEOUT_MS: "300", RATES_MAX_AGE_SECONDS: "3600" },
    });
    const httpMerchant = await httpApi.seedMerchant("Fiat over HTTP, stale");
    await setSettlementWallet(httpApi.db, httpMerchant.id, httpApi.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
    try {
      const rates = await httpApi.request("/api/v1/currency/rates");
      expect(rates.status).toBe(200);
      expect(rates.body.stale).toBe(true);
      const orderId = `order-${randomUUID()}`;
      const refused = await create({ amount: "92", currency: "EUR", token: "USDC", orderId }, httpApi, httpMerchant);
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ success: false, code: "RATE_UNAVAILABLE" });
      expect(refused.body.message).toContain("stale");
      expect(await httpApi.db.select().from(payments).where(eq(payments.orderId, orderId))).toHaveLength(0);
      // USD and stablecoin prices need no rate, not even for a merchant settling in NGN: its
      // statistics value the payment at the rate of the day they are read instead.
      await httpApi.db.update(merchants).set({ settlementCurrency: "NGN" }).where(eq(merchants.id, httpMerchant.id));
      try {
        for (const b of [{ amount: "5", currency: "USD", token: "USDC" }, { amount: "5", currency: "USDC" }]) {
          const response = await create(b, httpApi, httpMerchant);
          expect(response.status).toBe(201);
          const [row] = await httpApi.db.select().from(payments).where(eq(payments.id, response.body.payment.id));
          expect(row).toMatchObject({ settlementCurrency: "NGN", settlementRate: null });
        }
      } finally {
        await httpApi.db.update(merchants).set({ settlementCurrency: "USD" }).where(eq(merchants.id, httpMerchant.id));
      }
    } finally {
      await httpApi.close();
    }
  });

  test("HTTP provider with a source that never answered → GET /currency/rates 503", async () => {
    const deadSource = await startDeadRpc();
    const dead = await createTestApi({ env: { RATES_PROVIDER: "http", RATES_URL: `${deadSource.url}/rates`, RATES_TIMEOUT_MS: "300" } });
    try {
      const response = await dead.request("/api/v1/currency/rates");
      expect(response.status).toBe(503);
      expect(response.body).toMatchObject({ success: false, error: "service_unavailable", code: "RATE_UNAVAILABLE" });
      expect(response.body.message).toContain(new URL(deadSource.url).host);
    } finally {
      await dead.close();
      await deadSource.close();
    }
  });
});

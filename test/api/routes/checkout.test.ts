import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { createApp } from "../../../api/app.ts";
import { createPaymentStreamHub, MAX_STREAMS_PER_PAYMENT } from "../../../api/services/paymentStreamHub.ts";
import { loadPublicViews } from "../../../api/services/publicPaymentViews.ts";
import { createLogger } from "../../../config/logger.ts";
import { PAYMENT_CHANGES_CHANNEL } from "../../../db/paymentChanges.ts";
import { closePayment } from "../../../reconcile/index.ts";
import { setSettlementWallet } from "../../../db/settlementWallets.ts";
import { merchantWallet, operatorKey, startPaymentChain, type PaymentChain } from "../../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../../harness/testApi.ts";
import { sseReader } from "../../../harness/sseReader.ts";

/**
 * The checkout page's server side without a browser: the credential-free view and what
 * it must never show, successUrl/cancelUrl, the page's HTML and headers, its assets, the
 * event stream (a change is pushed at once, an unchanged view is not sent again) and the
 * credential-free refund request's refusals.
 */
let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;

beforeAll(async () => {
  chain = await startPaymentChain();
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant("Acme Coffee");
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
  // Public-key payments may return the customer only to the merchant's own origins.
  const set = await api.request("/api/v1/return-origins", { method: "PUT", headers: sk(), body: { origins: ["https://shop.example"] } });
  expect(set.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await api?.close();
  await chain?.stop();
});

const pk = () => ({ "x-public-key": merchant.publicKey });
const sk = () => ({ "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret });
const body = (extra: Record<string, unknown> = {}) => ({ amount: "25.50", currency: "USDC", network: "anvil", orderId: `order-${randomUUID()}`, ...extra });

async function createPayment(extra: Record<string, unknown> = {}, path = "/api/v1/payments/create") {
  const response = await api.request(path, { headers: pk(), body: body(extra) });
  expect(response.status).toBe(201);
  return response.body.payment;
}

describe("GET /payments/public/{id}: the checkout view", () => {
  test("shows what the page needs, and nothing of the merchant's or the customer's data", async () => {
    const created = await createPayment({
      customerEmail: "buyer@example.com",
      callbackUrl: "https://shop.example/hooks",
      metadata: { cart: "42" },
      successUrl: "https://shop.example/thanks",
      cancelUrl: "https://shop.example/cart",
    });
    expect(created.checkoutUrl).toBe(`${api.config.http.publicBaseUrl}/pay/${created.id}`);
    expect(created).toMatchObject({ successUrl: "https://shop.example/thanks", cancelUrl: "https://shop.example/cart" });

    const response = await api.request(`/api/v1/payments/public/${created.id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const view = response.body.payment;
    expect(view).toMatchObject({
      id: created.id,
      status: "pending",
      amount: "25.5",
      amountReceived: "0",
      amountRemaining: "25.5",
      excessOwed: "0",
      token: "USDC",
      network: "anvil",
      networkName: "Anvil",
      confirmations: 0,
      requiredConfirmations: 3,
      depositMethod: "settlement_contract",
      receiveAddress: created.receiveAddress,
      paymentUri: created.paymentUri,
      remainingPaymentUri: created.paymentUri,
      merchantName: "Acme Coffee",
      successUrl: "https://shop.example/thanks",
      cancelUrl: "https://shop.example/cart",
      isTest: true,
      // REFUND_MIN_AMOUNT (0.50 by default), in the token's units: the page offers no form for less.
      refundMinimum: "0.5",
      refunds: [],
    });
    // The wallet button's transactions are the ones the merchant's record lists.
    expect(view.wallet).toEqual({ protocol: "eip1193", chain: "0x7a69", token: created.tokenAddress, amount: "25500000", transactions: created.transactions });
    const text = JSON.stringify(view);
    for (const secret of ["buyer@example.com", "https://shop.example/hooks", '"cart"', created.orderId, merchant.publicKey, merchant.id]) expect(text).not.toContain(secret);
    for (const key of ["customerEmail", "callbackUrl", "metadata", "orderId", "merchantId", "merchantWallet", "agentId", "closedReason"]) expect(view).not.toHaveProperty(key);
  });

  test("a deposit payment's wallet button sends one plain transfer; unknown and malformed ids are 404 and 400", async () => {
    const deposit = await createPayment({}, "/api/v1/deposits/create");
    const view = (await api.request(`/api/v1/payments/public/${deposit.id}`)).body.payment;
    expect(view.depositMethod).toBe("deposit_address");
    expect(view.wallet.transactions).toHaveLength(1);
    expect(view.wallet.transactions[0]).toMatchObject({ description: "transfer", to: deposit.tokenAddress, value: "0" });
    // transfer(depositAddress, 25.5 USDC)
    expect(view.wallet.transactions[0].data).toBe(`0xa9059cbb${deposit.depositAddress.slice(2).toLowerCase().padStart(64, "0")}${(25_500_000).toString(16).padStart(64, "0")}`);

    expect((await api.request(`/api/v1/payments/public/${randomUUID()}`)).status).toBe(404);
    const malformed = await api.request("/api/v1/payments/public/not-a-uuid");
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toContain("paymentId");
  });

  // BUG: an id in capitals was a 404 on the view, the page and the stream, though the payment
  // exists (views are keyed by the lowercase id Postgres returns). The `urn:uuid:` form,
  // which Postgres's uuid type refuses, must stay a 400 on every route that takes an id.
  test("an id is the 8-4-4-4-12 form, in either case: `urn:uuid:` is a 400, capitals find the payment", async () => {
    const payment = await createPayment();
    const upper = String(payment.id).toUpperCase();
    for (const [method, path, body] of [
      ["GET", `/api/v1/payments/public/urn:uuid:${payment.id}`, undefined],
      ["GET", `/api/v1/payments/public/urn:uuid:${payment.id}/events`, undefined],
      ["POST", `/api/v1/payments/public/urn:uuid:${payment.id}/refund-request`, { address: "0x000000000000000000000000000000000000dEaD" }],
      ["POST", "/api/v1/payments/fail", { paymentId: `urn:uuid:${payment.id}`, status: "failed" }],
      ["POST", "/api/v1/payments/process", { paymentId: `urn:uuid:${payment.id}`, txHash: `0x${"ab".repeat(32)}` }],
    ] as const) {
      const response = await api.request(path, { method, headers: { "x-public-key": merchant.publicKey }, body });
      expect([path, response.status, response.body.error]).toEqual([path, 400, "invalid_request"]);
      expect(response.body.message).toContain("paymentId");
    }
    const view = await api.request(`/api/v1/payments/public/${upper}`);
    expect([view.status, view.body.payment?.id]).toEqual([200, payment.id]);
    const page = await api.app.handle(new Request(`http://localhost/pay/${upper}`));
    expect(page.status).toBe(200);
    await page.text();
    const stream = await api.app.handle(new Request(`http://localhost/api/v1/payments/public/${upper}/events`));
    expect(stream.status).toBe(200);
    const reader = sseReader(stream);
    const first = await reader.next(2_000);
    expect(JSON.parse(first!.data).id).toBe(payment.id);
    await reader.cancel();
  });

  test("successUrl and cancelUrl are validated like callbackUrl: a 400 naming the field", async () => {
    for (const field of ["successUrl", "cancelUrl"]) {
      for (const value of ["javascript:alert(1)", "not a url", "ftp://shop.example/x"]) {
        for (const headers of [pk(), sk()]) {
          const response = await api.request("/api/v1/payments/create", { headers, body: body({ [field]: value }) });
          expect(response.status).toBe(400);
          expect(response.body.message).toContain(`'${field}'`);
        }
      }
    }
  });
});

describe("return origins: where a public-key payment may send the customer", () => {
  test("a public key may name only the account's return origins; the key and secret any URL", async () => {
    for (const path of ["/api/v1/payments/create", "/api/v1/deposits/create"]) {
      for (const field of ["successUrl", "cancelUrl"]) {
        // Not the merchant's: refused before anything is stored, naming the field and the way out.
        for (const value of ["https://attacker.example/thanks", "https://shop.example.attacker.example/", "http://shop.example/thanks", "https://shop.example:8443/x"]) {
          const response = await api.request(path, { headers: pk(), body: body({ [field]: value }) });
          expect({ value, status: response.status, field: response.body.message?.split(":")[0] }).toEqual({ value, status: 400, field: `Invalid field '${field}'` });
          expect(response.body.message).toContain(`${new URL(value).origin} is not one of this account's return origins; add it with PUT /return-origins`);
        }
        // Any path on a listed origin (host case and default port do not matter).
        const ok = await api.request(path, { headers: pk(), body: body({ [field]: "https://SHOP.example:443/cart?step=2" }) });
        expect(ok.status).toBe(201);
        const view = await api.request(`/api/v1/payments/public/${ok.body.payment.id}`);
        expect(view.body.payment[field]).toBe("https://SHOP.example:443/cart?step=2");
        // The merchant's server (key + secret) is trusted with any http(s) URL.
        const server = await api.request(path, { headers: sk(), body: body({ [field]: "https://attacker.example/thanks" }) });
        expect(server.status).toBe(201);
      }
    }
    // The list is per mode: the live list is empty, and a payment made with the live public key is refused.
    const live = await api.request("/api/v1/return-origins", { headers: { "x-api-key": merchant.apiKey, "x-api-secret": merchant.apiSecret } });
    expect(live.body).toEqual({ success: true, mode: "live", origins: [] });
  });

  // BUG: concurrent replacements each deleted only the rows they saw: the stored list was
  // the union of both (an origin meant to be removed stayed), or one collided (500).
  test("concurrent PUT /return-origins: each answers, and the list is exactly one of them", async () => {
    const other = await api.seedMerchant("Racing shop");
    const otherSk = { "x-api-key": other.testApiKey, "x-api-secret": other.testApiSecret };
    const put = (origins: string[]) => api.request("/api/v1/return-origins", { method: "PUT", headers: otherSk, body: { origins } });
    for (let round = 0; round < 5; round++) {
      const [a, b, c] = [[`https://a${round}.example`], [`https://b${round}.example`], [`https://a${round}.example`]];
      const answers = await Promise.all([put(a), put(b), put(c)]);
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
      const stored = (await api.request("/api/v1/return-origins", { headers: otherSk })).body.origins;
      expect([a, b]).toContainEqual(stored);
    }
  });

  test("PUT /return-origins replaces the list: origins normalised, deduplicated, sorted; 400 naming the entry; key + secret only", async () => {
    const other = await api.seedMerchant("Other shop");
    const otherSk = { "x-api-key": other.testApiKey, "x-api-secret": other.testApiSecret };
    const put = (origins: unknown, headers: Record<string, string> = otherSk) => api.request("/api/v1/return-origins", { method: "PUT", headers, body: { origins } });

    const set = await put(["https://Shop.Example:443/", "http://localhost:3000", "https://shop.example", " https://b.example "]);
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ success: true, mode: "test", origins: ["http://localhost:3000", "https://b.example", "https://shop.example"] });
    expect((await api.request("/api/v1/return-origins", { headers: otherSk })).body.origins).toEqual(["http://localhost:3000", "https://b.example", "https://shop.example"]);

    for (const [origins, field, text] of [
      ["https://shop.example", "origins", "expected an array"],
      [["https://ok.example", "https://shop.example/thanks"], "origins[1]", "no path, query or fragment (did you mean https://shop.example?)"],
      [["https://shop.example?x=1"], "origins[0]", "no path, query or fragment"],
      [["https://shop.example#top"], "origins[0]", "no path, query or fragment"],
      [["https://*.shop.example"], "origins[0]", "wildcards are not supported"],
      [["https://user:pw@shop.example"], "origins[0]", "no credentials"],
      [["javascript:alert(1)"], "origins[0]", "http or https"],
      [["shop.example"], "origins[0]", "not a URL"],
      [[42], "origins[0]", "expected a string"],
      [Array.from({ length: 21 }, (_, i) => `https://s${i}.example`), "origins", "at most 20"],
    ] as const) {
      const response = await put(origins);
      expect({ origins, status: response.status }).toEqual({ origins, status: 400 });
      expect(response.body.message).toContain(`Invalid field '${field}'`);
      expect(response.body.message).toContain(text);
    }
    // A refused PUT changed nothing; a public key can neither read nor set the list.
    expect((await api.request("/api/v1/return-origins", { headers: otherSk })).body.origins).toHaveLength(3);
    expect((await put(["https://attacker.example"], { "x-public-key": other.publicKey })).status).toBe(401);
    expect((await api.request("/api/v1/return-origins", { headers: { "x-public-key": other.publicKey } })).status).toBe(401);
    // [] clears it; the first merchant's list is its own.
    expect((await put([])).body.origins).toEqual([]);
    expect((await api.request("/api/v1/return-origins", { headers: sk() })).body.origins).toEqual(["https://shop.example"]);
  });
});

describe("GET /pay/{id}: the page", () => {
  test("server-rendered HTML with a strict CSP, in the language asked for", async () => {
    const payment = await createPayment();
    const response = await api.app.handle(new Request(`http://localhost/pay/${payment.id}`, { headers: { "accept-language": "fr-CA,fr;q=0.9" } }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("content-security-policy")).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("cache-control")).toBe("no-store");
    const html = await response.text();
    expect(html).toContain('<html lang="fr">');
    expect(html).toContain("Payer Acme Coffee");
    expect(html).toContain("En attente de votre paiement");
    // No inline script or style, and nothing from another origin.
    expect(html).not.toMatch(/<script(?![^>]*(type="module" src="\/pay\/assets\/|type="application\/json"))/);
    expect(html).not.toMatch(/ style=|<style/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);

    const spanish = await (await api.app.handle(new Request(`http://localhost/pay/${payment.id}?lang=es`))).text();
    expect(spanish).toContain("Esperando tu pago");
    const fallback = await (await api.app.handle(new Request(`http://localhost/pay/${payment.id}`, { headers: { "accept-language": "de" } }))).text();
    expect(fallback).toContain('<html lang="en">');
  });

  test("the page's data block cannot be broken out of by a merchant's name", async () => {
    const evil = await api.seedMerchant("</script><script>alert(1)</script>");
    await setSettlementWallet(api.db, evil.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
    const created = await api.request("/api/v1/payments/create", { headers: { "x-public-key": evil.publicKey }, body: body() });
    const html = await (await api.app.handle(new Request(`http://localhost/pay/${created.body.payment.id}`))).text();
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  test("unknown or malformed ids get a 404 page; assets are versioned and cached for a year; the QR code is an SVG", async () => {
    for (const id of [randomUUID(), "nope", "%00"]) {
      const response = await api.app.handle(new Request(`http://localhost/pay/${id}`));
      expect(response.status).toBe(404);
      expect(await response.text()).toContain("Payment not found");
    }
    const payment = await createPayment();
    const html = await (await api.app.handle(new Request(`http://localhost/pay/${payment.id}`))).text();
    const script = /src="(\/pay\/assets\/[0-9a-f]{16}\/checkout\.js)"/.exec(html)![1]!;
    const asset = await api.app.handle(new Request(`http://localhost${script}`));
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await api.app.handle(new Request("http://localhost/pay/assets/0000000000000000/checkout.js"))).status).toBe(404);
    expect((await api.app.handle(new Request(`http://localhost${script.replace("checkout.js", "../../../package.json")}`))).status).toBe(404);

    const qr = await api.app.handle(new Request(`http://localhost/pay/${payment.id}/qr.svg`));
    expect(qr.status).toBe(200);
    expect(qr.headers.get("content-type")).toBe("image/svg+xml");
    expect(await qr.text()).toStartWith("<svg");
    expect((await api.app.handle(new Request(`http://localhost/pay/${randomUUID()}/qr.svg`))).status).toBe(404);
  });

  // BUG: the page's own URLs (assets, API, QR code, network logo) were absolute from the
  // root: behind a proxy serving the service under a path, none of them loaded.
  test("PUBLIC_BASE_URL with a path: the page's assets, API, QR code and logo carry that path", async () => {
    const prefixed = createApp({ ...api.deps, config: { ...api.config, http: { ...api.config.http, publicBaseUrl: "https://shop.example/pay-svc" } } });
    const payment = await createPayment();
    // The proxy strips the path: the service sees /pay/{id}.
    const html = await (await prefixed.handle(new Request(`http://localhost/pay/${payment.id}`))).text();
    expect(html).toMatch(/<script type="module" src="\/pay-svc\/pay\/assets\/[0-9a-f]{16}\/checkout\.js">/);
    expect(html).toMatch(/<link rel="stylesheet" href="\/pay-svc\/pay\/assets\//);
    expect(html).toContain(`src="/pay-svc/pay/${payment.id}/qr.svg?due=25.5"`);
    expect(html).toContain('"apiBase":"/pay-svc/api/v1"');
    expect(html).toContain('"basePath":"/pay-svc"');
    expect(html).not.toMatch(/(src|href)="\/(pay|api)\//);
  });
});

describe("GET /payments/public/{id}/events: the live stream", () => {
  /** A second app on the same database, with a stream hub of its own (limits and heartbeat to see). */
  const appWithHub = (limits: { maxStreams: number; heartbeatMs?: number; maxStreamMs?: number }) => {
    const hub = createPaymentStreamHub({
      databaseUrl: api.databaseUrl,
      logger: createLogger({ level: "silent" }),
      load: (ids) => loadPublicViews(api.deps, ids),
      ...limits,
    });
    return { hub, app: createApp({ ...api.deps, paymentStreams: hub }) };
  };

  test("sends the view at once, pushes a change within a second, never resends an unchanged view, and keeps alive", async () => {
    const { hub, app } = appWithHub({ maxStreams: 1, heartbeatMs: 300 });
    try {
      const payment = await createPayment();
      const response = await app.handle(new Request(`http://localhost/api/v1/payments/public/${payment.id}/events`));
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
      const stream = sseReader(response);
      const first = await stream.next(2_000);
      expect(first?.event).toBe("payment");
      expect(JSON.parse(first!.data)).toMatchObject({ id: payment.id, status: "pending" });

      // The process holds at most one stream here: the next is refused, and the page polls.
      const refused = await app.handle(new Request(`http://localhost/api/v1/payments/public/${payment.id}/events`));
      expect(refused.status).toBe(503);

      // An announced change that changes nothing sends nothing; the heartbeat flows meanwhile.
      const listener = new pg.Client({ connectionString: api.databaseUrl });
      await listener.connect();
      await listener.query(`notify ${PAYMENT_CHANGES_CHANNEL}, '${payment.id}'`);
      await listener.end();
      expect(await stream.next(800)).toBeNull();
      expect(stream.comments()).toBeGreaterThanOrEqual(2);

      // The merchant closes it: the stream has it at once.
      const started = Date.now();
      await closePayment(api.db, payment.id, merchant.id, { status: "cancelled", reason: null });
      const next = await stream.next(1_000);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(JSON.parse(next!.data)).toMatchObject({ id: payment.id, status: "cancelled", wallet: null });
      await stream.cancel();
      // The cancelled stream's place is free again...
      await Bun.sleep(50);
      expect(hub.streams()).toBe(0);
      const again = await app.handle(new Request(`http://localhost/api/v1/payments/public/${payment.id}/events`));
      expect(again.status).toBe(200);
      const reader = again.body!.getReader();
      await reader.read();
      // ...and a shutting-down process ends its streams (else its drain would wait for ever).
      await hub.stop();
      let done = false;
      while (!done) done = (await reader.read()).done;
      expect(hub.streams()).toBe(0);
    } finally {
      await hub.stop();
    }
  });

  // BUG: nothing bounded the streams of one payment: anyone holding one checkout link could
  // take every stream slot of the server, and every other checkout page fell back to polling.
  test("one payment holds at most MAX_STREAMS_PER_PAYMENT streams; other payments still get theirs", async () => {
    const { hub, app } = appWithHub({ maxStreams: 1_000 });
    const open: Response[] = [];
    try {
      const [target, other] = [await createPayment(), await createPayment()];
      const stream = (id: string) => app.handle(new Request(`http://localhost/api/v1/payments/public/${id}/events`));
      for (let i = 0; i < MAX_STREAMS_PER_PAYMENT; i++) {
        const response = await stream(target.id);
        expect(response.status).toBe(200);
        open.push(response);
      }
      const refused = await stream(target.id);
      if (refused.status !== 503) open.push(refused); // a stream after all: closed at the end
      expect(refused.status).toBe(503);
      expect((await refused.json()).error).toBe("service_unavailable");
      const another = await stream(other.id);
      expect(another.status).toBe(200);
      open.push(another);
      expect(hub.streams()).toBe(MAX_STREAMS_PER_PAYMENT + 1);
    } finally {
      for (const response of open) await response.body?.cancel();
      await hub.stop();
    }
  });

  test("a stream ends after its longest life, freeing its slot (the browser reconnects)", async () => {
    const { hub, app } = appWithHub({ maxStreams: 1, maxStreamMs: 300 });
    try {
      const payment = await createPayment();
      const response = await app.handle(new Request(`http://localhost/api/v1/payments/public/${payment.id}/events`));
      const reader = response.body!.getReader();
      const started = Date.now();
      let done = false;
      while (!done) done = (await reader.read()).done;
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      expect(hub.streams()).toBe(0);
      expect((await app.handle(new Request(`http://localhost/api/v1/payments/public/${payment.id}/events`))).status).toBe(200);
    } finally {
      await hub.stop();
    }
  });

  // BUG: the abort listener was added after the first read: a client gone during it never
  // freed its slot, and a hub stopped during it left a heartbeat timer running.
  test("a client gone, or the hub stopped, while the stream's first read runs: no slot or timer left", async () => {
    let slow = Promise.resolve();
    const hub = createPaymentStreamHub({
      databaseUrl: api.databaseUrl,
      logger: createLogger({ level: "silent" }),
      load: async (ids) => {
        await slow;
        return loadPublicViews(api.deps, ids);
      },
      maxStreams: 10,
    });
    const app = createApp({ ...api.deps, paymentStreams: hub });
    try {
      const payment = await createPayment();
      const gone = new AbortController();
      slow = Bun.sleep(200);
      const request = app.handle(new Request(`http://localhost/api/v1/payments/public/${payment.id}/events`, { signal: gone.signal }));
      await Bun.sleep(50);
      gone.abort();
      expect((await request).status).toBe(503);
      expect(hub.streams()).toBe(0);

      slow = Bun.sleep(200);
      const stopped = app.handle(new Request(`http://localhost/api/v1/payments/public/${payment.id}/events`));
      await Bun.sleep(50);
      await hub.stop();
      expect((await stopped).status).toBe(503);
      expect(hub.streams()).toBe(0);
    } finally {
      await hub.stop();
    }
  });

  test("a simulated completion reaches the stream; an unknown payment has none", async () => {
    const created = await api.request("/api/v1/sandbox/payments", { headers: pk(), body: body() });
    const id = created.body.payment.id;
    const response = await api.app.handle(new Request(`http://localhost/api/v1/payments/public/${id}/events`));
    const stream = sseReader(response);
    expect(JSON.parse((await stream.next(2_000))!.data).status).toBe("pending");
    await api.request(`/api/v1/sandbox/payments/${id}/simulate`, { headers: pk(), body: { action: "complete" } });
    expect(JSON.parse((await stream.next(1_000))!.data)).toMatchObject({ status: "completed", amountReceived: "25.5" });
    expect((await api.app.handle(new Request(`http://localhost/api/v1/payments/public/${randomUUID()}/events`))).status).toBe(404);
    await stream.cancel();
  });
});

describe("POST /payments/public/{id}/refund-request: the page's refund, keyed by the payment id", () => {
  test("the view names the wallet interface that signs a refund request; the page explains where a refund goes and serves the signing modules", async () => {
    const deposit = await createPayment({}, "/api/v1/deposits/create");
    const view = (await api.request(`/api/v1/payments/public/${deposit.id}`)).body.payment;
    expect(view.refundSigner).toBe("eip1193");
    const page = await api.app.handle(new Request(`http://localhost/pay/${deposit.id}`));
    const html = await page.text();
    expect(html).toContain('id="refund-to-payer"');
    expect(html).toContain("It goes back to the address you paid from.");
    expect(html).toContain('id="refund-sign" class="primary" hidden');
    const assets = /href="([^"]+)\/checkout\.css"/.exec(html)![1]!;
    for (const name of ["refundMessage.js", "refundSign.js", "refund.js"]) {
      const asset = await api.app.handle(new Request(`http://localhost${assets}/${name}`));
      expect([name, asset.status, asset.headers.get("content-type")]).toEqual([name, 200, "text/javascript; charset=utf-8"]);
      await asset.text();
    }
  });

  test("refuses what /deposits/refund-request refuses, with the same codes", async () => {
    const payment = await createPayment({}, "/api/v1/deposits/create");
    const post = (id: string, address: unknown) => api.request(`/api/v1/payments/public/${id}/refund-request`, { body: { address } });
    expect((await post(randomUUID(), merchantWallet)).status).toBe(404);
    const invalid = await post(payment.id, "not an address");
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toContain("'address'");
    expect((await post(payment.id, payment.depositAddress)).status).toBe(400);
    const nothing = await post(payment.id, merchantWallet);
    expect(nothing.status).toBe(409);
    expect(nothing.body.error).toBe("nothing_to_refund");
    // No address is a refund back to the address that paid (nothing owed here, so nothing to refund).
    const toPayer = await api.request(`/api/v1/payments/public/${payment.id}/refund-request`, { body: {} });
    expect([toPayer.status, toPayer.body.error]).toEqual([409, "nothing_to_refund"]);
    expect((await api.request(`/api/v1/payments/public/${payment.id}/refund-request`, { body: { address: "" } })).status).toBe(400);
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getAddress } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { insertPayment } from "../../db/payments.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { openQueue, QUEUES } from "../../jobs/queues.ts";
import { ANVIL_USDC, anvilNetwork } from "../helpers/fixtures.ts";
import { relayError, relayQuoteResponse, signRelayWebhook, startFakeRelay, type FakeRelay, type RelayQuoteBody } from "../helpers/fakeRelay.ts";
import { paymentRowFactory } from "../helpers/paymentRows.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../helpers/testApi.ts";

/**
 * The cross-chain endpoints as the spec shows them, with Relay behind them (a loopback
 * server answering with Relay's documented shapes): the creation body and response, the
 * idempotency every create has, every rejection code with its HTTP status, the sources,
 * the status view, and Relay's signed webhooks. The chains' RPCs are dead on purpose:
 * nothing here needs them.
 */
const OPERATOR_KEY = `0x${"11".repeat(32)}` as const;
const OPERATOR = privateKeyToAccount(OPERATOR_KEY).address;
const API_KEY = "relay-test-key-0123456789";
const WALLET = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
const WALLET_2 = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
const DEPOSIT = "0x1b3f9a0e5c7d2e4f6a8b0c1d2e3f4a5b6c7d8e9f";
const REQUEST_ID = `0x${"ab".repeat(32)}`;
let firstPaymentId: string;

let fake: FakeRelay;
let api: TestApi;
let merchant: TestMerchant;
let walletless: TestMerchant;

beforeAll(async () => {
  fake = startFakeRelay();
  api = await createTestApi({
    env: {
      OPERATOR_PRIVATE_KEY: OPERATOR_KEY,
      BRIDGE_ADAPTER: "relay",
      // Local chains are testnets: Relay's testnet base URL serves them, never the mainnet one.
      RELAY_TESTNET_API_URL: fake.url,
      RELAY_API_URL: "http://127.0.0.1:9",
      RELAY_API_KEY: API_KEY,
      RELAY_TIMEOUT_MS: "400",
      // No refunds possible on anvil: payments from there are refused.
      BRIDGE_REFUND_ADDRESS_31337: "none",
    },
    networks: [
      anvilNetwork("http://127.0.0.1:1"),
      anvilNetwork("http://127.0.0.1:1", { name: "Anvil 2", shortName: "anvil-2", chainId: "31338" }),
    ],
  });
  merchant = await api.seedMerchant();
  walletless = await api.seedMerchant("No wallets");
  const network = (shortName: string) => api.config.networks.find((n) => n.shortName === shortName)!;
  await setSettlementWallet(api.db, merchant.id, network("anvil").id, WALLET);
  await setSettlementWallet(api.db, merchant.id, network("anvil-2").id, WALLET_2);
}, 60_000);

afterAll(async () => {
  fake?.stop();
  await api?.close();
});

const headers = (m: TestMerchant = merchant, extra: Record<string, string> = {}) => ({ "x-public-key": m.publicKey, ...extra });
let orders = 0;
const body = (over: Record<string, unknown> = {}) => ({ amount: 25.5, originChainId: 31338, originCurrency: "USDC", orderId: `order-${++orders}`, ...over });
const create = (b: unknown, options: { headers?: Record<string, string>; path?: string } = {}) =>
  api.request(options.path ?? "/api/v1/payments/cross-chain/create", { headers: options.headers ?? headers(), body: b });
const quotes = () => fake.at("POST /quote/v2");

describe("POST /payments/cross-chain/create", () => {
  test("answers the spec's creation response, from a strict EXACT_OUTPUT Relay deposit address", async () => {
    const before = quotes().length;
    fake.on("POST /quote/v2", (request) => ({ json: relayQuoteResponse({ request: request.body as RelayQuoteBody, depositAddress: DEPOSIT, requestId: REQUEST_ID }) }));
    const response = await create(body({ customerEmail: "buyer@example.com", metadata: { cart: "7" }, callbackUrl: "http://127.0.0.1:1/hook" }));
    fake.on("POST /quote/v2", (request) => ({ json: relayQuoteResponse({ request: request.body as RelayQuoteBody }) }));
    firstPaymentId = response.body.payment.id;
    expect(response.status).toBe(201);
    const payment = response.body.payment;
    const sent = quotes()[before]!.body as RelayQuoteBody & Record<string, unknown>;
    expect(Object.keys(payment).sort()).toEqual(
      ["amountToSend", "amountToSendFormatted", "destination", "expiresAt", "id", "originChainId", "originCurrency", "relayDepositAddress", "status"].sort(),
    );
    expect(payment).toMatchObject({
      status: "pending",
      relayDepositAddress: getAddress(DEPOSIT),
      // Relay's fake adds its 12_000 + 2_500 relayer fee to the 25.5 USDC the merchant receives.
      amountToSend: "25514500",
      amountToSendFormatted: "25.5145",
      originChainId: 31338,
      originCurrency: "USDC",
      destination: { network: "anvil", currency: "USDC", amount: "25.5" },
    });
    expect(sent).toMatchObject({
      originChainId: 31338,
      destinationChainId: 31337,
      originCurrency: ANVIL_USDC,
      destinationCurrency: ANVIL_USDC,
      recipient: WALLET,
      amount: "25500000",
      tradeType: "EXACT_OUTPUT",
      useDepositAddress: true,
      strict: true,
      // Refunds go to an address the operator controls on the origin chain.
      refundTo: OPERATOR,
      referrer: payment.id,
    });
    expect(quotes()[before]!.headers["x-api-key"]).toBe(API_KEY);
    // Expiry: the default 1800 s, from a whole second.
    const expiresAt = Date.parse(payment.expiresAt);
    expect(expiresAt % 1000).toBe(0);
    expect(Math.abs(expiresAt - Date.now() - 1_800_000)).toBeLessThan(2_000);
    expect(sent.ttl as number).toBeGreaterThanOrEqual(1799);

    const status = await api.request(`/api/v1/payments/${payment.id}/status`, { headers: headers() });
    expect(status.body.payment).toMatchObject({ status: "pending", amount: "25.5", amountReceived: "0", bridgeStatus: "awaiting_deposit", currency: "USDC" });
    const full = await api.request(`/api/v1/payments/${payment.id}`, { headers: headers() });
    expect(full.body.payment).toMatchObject({ bridgeStatus: "awaiting_deposit", network: "anvil", receiveAddress: null, paymentUri: null, customerEmail: "buyer@example.com" });
  });

  test("expiresIn is honoured to the second, and bounded", async () => {
    const response = await create(body({ expiresIn: 61 }));
    expect(response.status).toBe(201);
    const expiresAt = Date.parse(response.body.payment.expiresAt);
    expect(expiresAt % 1000).toBe(0);
    expect(expiresAt - Date.now()).toBeGreaterThan(59_000);
    expect(expiresAt - Date.now()).toBeLessThanOrEqual(61_000);
    for (const expiresIn of [59, 1.5, 10 ** 9]) {
      const bad = await create(body({ expiresIn }));
      expect([expiresIn, bad.status, bad.body.error]).toEqual([expiresIn, 400, "invalid_request"]);
      expect(bad.body.message).toContain("expiresIn");
    }
  });

  test("the destination can be named; its token defaults to the origin's", async () => {
    const response = await create(body({ originChainId: 31338, network: "anvil", currency: "USDC", amount: "1" }));
    expect(response.status).toBe(201);
    expect(response.body.payment.destination).toEqual({ network: "anvil", currency: "USDC", amount: "1" });
  });

  test("idempotent like every create: header, then orderId, then the body; /api and /api/v1 share keys", async () => {
    const before = quotes().length;
    const first = await create(body({ orderId: undefined }), { headers: headers(merchant, { "Idempotency-Key": "xc-key-1" }) });
    const again = await create(body({ orderId: undefined }), { path: "/api/payments/cross-chain/create", headers: headers(merchant, { "Idempotency-Key": "xc-key-1" }) });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const reused = await create(body({ orderId: undefined, amount: 26 }), { headers: headers(merchant, { "Idempotency-Key": "xc-key-1" }) });
    expect([reused.status, reused.body.error]).toEqual([409, "idempotency_key_reused"]);

    const byOrder = { ...body(), orderId: "order-xc-fixed" };
    const a = await create(byOrder);
    const b = await create(byOrder, { path: "/api/payments/cross-chain/create" });
    expect(b.body.payment.id).toBe(a.body.payment.id);

    const plain = { amount: "3", originChainId: 31338, originCurrency: "USDC" };
    const c = await create(plain);
    const d = await create(plain);
    const e = await create({ ...plain, amount: "4" });
    expect(d.body.payment.id).toBe(c.body.payment.id);
    expect(e.body.payment.id).not.toBe(c.body.payment.id);
    // One quote per payment: retries never ask the bridge again.
    expect(quotes().length - before).toBe(4);
  });

  test("concurrent duplicates create one payment and ask Relay once", async () => {
    const before = quotes().length;
    const same = body();
    const answers = await Promise.all([create(same), create(same), create(same)]);
    expect(new Set(answers.map((r) => r.body.payment.id)).size).toBe(1);
    expect(quotes().length - before).toBe(1);
  });
});

describe("rejections: {success: false, code, error?}", () => {
  test.each([
    ["Solana (Relay's chain id)", 792703809],
    ["an unknown chain", 999_999],
    ["a mainnet with a test key (and not enabled here)", 8453],
  ])("ORIGIN_NOT_SUPPORTED for %s: 422", async (_what, originChainId) => {
    const before = quotes().length;
    const response = await create(body({ originChainId }));
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ success: false, code: "ORIGIN_NOT_SUPPORTED", error: "origin_not_supported" });
    expect(quotes().length).toBe(before);
  });

  test("ORIGIN_REFUND_NOT_SUPPORTED when no refund address exists on the origin: 422, Relay not asked", async () => {
    const before = quotes().length;
    const response = await create(body({ originChainId: 31337 }));
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ success: false, code: "ORIGIN_REFUND_NOT_SUPPORTED", error: "origin_refund_not_supported" });
    expect(quotes().length).toBe(before);
  });

  test("NO_DESTINATION when the merchant has no wallet a bridge reaches, or names a network no bridge reaches: 422", async () => {
    const none = await create(body(), { headers: headers(walletless) });
    expect(none.status).toBe(422);
    expect(none.body).toMatchObject({ success: false, code: "NO_DESTINATION", error: "no_destination" });
    const sameChain = await create(body({ network: "anvil-2" }));
    expect([sameChain.status, sameChain.body.code]).toEqual([422, "NO_DESTINATION"]);
  });

  test.each(["AMOUNT_TOO_LOW", "NO_QUOTES", "NO_SWAP_ROUTES_FOUND", "NO_INTERNAL_SWAP_ROUTES_FOUND", "INSUFFICIENT_LIQUIDITY", "UNSUPPORTED_ROUTE", "ROUTE_TEMPORARILY_RESTRICTED", "SWAP_IMPACT_TOO_HIGH"])(
    "Relay's %s is NO_ROUTE with Relay's text in error: 422, and the key stays free",
    async (errorCode) => {
      const message = `Relay says ${errorCode.toLowerCase().replaceAll("_", " ")}`;
      fake.queue("POST /quote/v2", relayError(errorCode, message));
      const key = `no-route-${errorCode}`;
      const response = await create(body(), { headers: headers(merchant, { "Idempotency-Key": key }) });
      expect(response.status).toBe(422);
      expect(response.body).toMatchObject({ success: false, code: "NO_ROUTE", error: message });
      const retry = await create(body(), { headers: headers(merchant, { "Idempotency-Key": key }) });
      expect(retry.status).toBe(201);
    },
  );

  test.each(["UNSUPPORTED_CHAIN", "CHAIN_DISABLED"])("Relay's %s on the origin is ORIGIN_NOT_SUPPORTED: 422", async (errorCode) => {
    fake.queue("POST /quote/v2", relayError(errorCode, "Origin chain 31338 is not supported"));
    const response = await create(body());
    expect([response.status, response.body.code]).toEqual([422, "ORIGIN_NOT_SUPPORTED"]);
  });

  test.each([
    ["a 500", () => fake.queue("POST /quote/v2", { status: 500, json: { message: "Internal error" } })],
    ["an unknown error code", () => fake.queue("POST /quote/v2", relayError("SOMETHING_NEW", "new"))],
    ["429 to the end", () => fake.queue("POST /quote/v2", ...Array.from({ length: 3 }, () => ({ status: 429, headers: { "retry-after": "0" }, json: { message: "slow down" } })))],
    ["a timeout", () => fake.queue("POST /quote/v2", { hang: true })],
    ["an answer without a deposit address", () => fake.queue("POST /quote/v2", { json: { steps: [] } })],
  ])("%s is a 502 saying the bridge failed; nothing is created", async (_what, arrange) => {
    arrange();
    const response = await create(body());
    expect(response.status).toBe(502);
    expect(response.body).toMatchObject({ success: false, error: "bridge_unavailable" });
    expect(response.body.message).toStartWith("The bridge (relay) failed");
  });

  test("bad input is a 400 naming the field", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [body({ originCurrency: "XYZ" }), "originCurrency"],
      [body({ amount: "-1" }), "amount"],
      [body({ amount: "0.0000001" }), "amount"],
      [body({ originChainId: "base" }), "originChainId"],
      [body({ originChainId: 31338.5 }), "originChainId"],
      [body({ metadata: { a: 1 } }), "metadata"],
      [body({ callbackUrl: "ftp://x" }), "callbackUrl"],
      [body({ network: "nowhere" }), "network"],
      [body({ currency: "XYZ" }), "currency"],
      [{ originChainId: 31338, originCurrency: "USDC" }, "amount"],
    ];
    for (const [b, field] of cases) {
      const response = await create(b);
      expect([field, response.status, response.body.error]).toEqual([field, 400, "invalid_request"]);
      expect(response.body.message).toContain(field);
    }
  });

  test("without credentials: 401", async () => {
    const response = await create(body(), { headers: {} });
    expect(response.status).toBe(401);
  });
});

describe("GET /payments/cross-chain/sources", () => {
  test("needs no credentials and lists each chain a customer can pay from, with its tokens and destinations", async () => {
    const response = await api.request("/api/v1/payments/cross-chain/sources");
    expect(response.status).toBe(200);
    const sources = response.body.sources as Array<Record<string, any>>;
    expect(sources.map((s) => s.shortName)).toEqual(["anvil", "anvil-2"]);
    expect(sources[1]).toMatchObject({ originChainId: 31338, chainId: "31338", type: "evm", isTestnet: true, destinations: ["anvil"] });
    expect(sources[1]!.tokens).toEqual([{ symbol: "USDC", name: "USD Coin", contractAddress: ANVIL_USDC, decimals: 6 }]);
    expect((await api.request("/api/payments/cross-chain/sources")).body).toEqual(response.body);
  });
});

describe("GET /payments/cross-chain/status/{paymentId}", () => {
  test("shows the bridge and both legs; other payments, unknown and malformed ids are 404/400; credentials required", async () => {
    const created = (await create(body())).body.payment;
    const response = await api.request(`/api/v1/payments/cross-chain/status/${created.id}`, { headers: headers() });
    expect(response.status).toBe(200);
    expect(response.body.payment).toMatchObject({
      id: created.id,
      status: "pending",
      bridgeStatus: "awaiting_deposit",
      amount: "25.5",
      amountReceived: "0",
      network: "anvil",
      bridge: {
        adapter: "relay",
        status: "awaiting_deposit",
        progress: "waiting",
        relayDepositAddress: created.relayDepositAddress,
        amountToSend: created.amountToSend,
        origin: { chainId: 31338, currency: "USDC", depositTxHashes: [], amountDeposited: "0" },
        destination: { currency: "USDC", fillTxHashes: [], amountFilled: "0" },
        refund: { address: OPERATOR, refundTxHashes: [], amountRefunded: "0" },
      },
    });
    const direct = await insertPayment(api.db, paymentRowFactory(api.config)(merchant.id));
    expect((await api.request(`/api/v1/payments/cross-chain/status/${direct.id}`, { headers: headers() })).status).toBe(404);
    expect((await api.request("/api/v1/payments/cross-chain/status/00000000-0000-4000-8000-000000000000", { headers: headers() })).status).toBe(404);
    expect((await api.request("/api/v1/payments/cross-chain/status/nope", { headers: headers() })).status).toBe(400);
    expect((await api.request(`/api/v1/payments/cross-chain/status/${created.id}`, { headers: headers(walletless) })).status).toBe(404);
    expect((await api.request(`/api/v1/payments/cross-chain/status/${created.id}`)).status).toBe(401);
  });
});

describe("Relay webhooks", () => {
  const post = (raw: string, sig: Record<string, string>, path = "/api/webhooks/relay") =>
    api.request(path, { method: "POST", headers: { "content-type": "application/json", ...sig }, body: raw });

  test("a signed request.status.updated prompts a read of that payment's bridge; nothing else does", async () => {
    const queue = openQueue(api.config, QUEUES.bridge);
    const seconds = () => String(Math.floor(Date.now() / 1000));
    const event = (data: Record<string, unknown>) => JSON.stringify({ event: "request.status.updated", timestamp: Date.now(), data: { status: "depositing", ...data } });
    try {
      // Prompted now (not the creation's delayed read): the job id's bucket width is 1000.
      const prompted = async () => (await queue.getJobs(["waiting", "delayed", "active", "completed", "failed"])).filter((j) => j.data.paymentId === firstPaymentId && j.id!.includes("-1000-"));
      expect(await prompted()).toHaveLength(0);
      const byId = event({ requestId: REQUEST_ID });
      expect((await post(byId, signRelayWebhook(API_KEY, byId, seconds()))).status).toBe(200);
      expect(await prompted()).toHaveLength(1);
      await queue.drain(true);
      const byAddress = event({ requestId: "0x01", depositAddress: { address: DEPOSIT } });
      expect((await post(byAddress, signRelayWebhook(API_KEY, byAddress, seconds()), "/api/v1/webhooks/relay")).status).toBe(200);
      expect(await prompted()).toHaveLength(1);
      await queue.drain(true);

      const forged = await post(byId, signRelayWebhook("another-key", byId, seconds()));
      expect([forged.status, forged.body.error]).toEqual([401, "invalid_webhook_signature"]);
      expect((await post(byId, signRelayWebhook(API_KEY, byId, String(Math.floor(Date.now() / 1000) - 3_600)))).status).toBe(401);
      expect((await post(byId, {})).status).toBe(401);
      // Another event, or a request we do not know, verifies and is acknowledged; nothing is prompted.
      const other = JSON.stringify({ event: "request.created", data: {} });
      expect((await post(other, signRelayWebhook(API_KEY, other, seconds()))).status).toBe(200);
      const unknown = event({ requestId: "0x02" });
      expect((await post(unknown, signRelayWebhook(API_KEY, unknown, seconds()))).status).toBe(200);
      expect(await prompted()).toHaveLength(0);
    } finally {
      await queue.close();
    }
  });
});
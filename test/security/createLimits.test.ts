import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { and, eq } from "drizzle-orm";
import { payments } from "../../db/schema/index.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { anvilNetwork } from "../../harness/fixtures.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * Issue 41: what one create may ask, and how many a merchant may have open — every open
 * payment is an address the chains' watchers follow until it expires. And the body
 * fingerprint (spec rule 3) is a retry only for a short while: two customers with identical
 * carts are two payments. Real Postgres and Redis; creation needs no chain here.
 */
const network = anvilNetwork("http://127.0.0.1:1", { settlementContract: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0", forwarderFactory: "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9" });
const WALLET = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

let api: TestApi;
beforeAll(async () => {
  api = await createTestApi({
    limits: "defaults",
    networks: [network],
    env: { OPERATOR_PRIVATE_KEY: `0x${"11".repeat(32)}`, MAX_OPEN_PAYMENTS: "4", MAX_OPEN_PAYMENTS_PUBLIC_KEY: "2", IDEMPOTENCY_BODY_WINDOW_SECONDS: "2" },
  });
}, 60_000);
afterAll(async () => {
  await api?.close();
});

async function merchantOf(name: string): Promise<TestMerchant> {
  const m = await api.seedMerchant(name);
  await setSettlementWallet(api.db, m.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, WALLET);
  return m;
}
const pk = (m: TestMerchant) => ({ "x-public-key": m.publicKey });
const sk = (m: TestMerchant) => ({ "x-api-key": m.testApiKey, "x-api-secret": m.testApiSecret });
const create = (headers: Record<string, string>, body: Record<string, unknown> = {}, path = "/api/v1/payments/create") =>
  api.request(path, { headers, body: { amount: "3", currency: "USDC", network: "anvil", orderId: `o-${randomUUID()}`, ...body } });

describe("open payments per merchant and mode (MAX_OPEN_PAYMENTS 4, public key 2)", () => {
  test("a public key opens 2; key + secret goes on to 4; then 409 until one ends", async () => {
    const m = await merchantOf("Capped");
    expect((await create(pk(m))).status).toBe(201);
    expect((await create(pk(m), {}, "/api/v1/deposits/create")).status).toBe(201);
    const publicRefused = await create(pk(m));
    expect(publicRefused.status).toBe(409);
    expect(publicRefused.body).toEqual({ success: false, error: "open_payments_limit", message: expect.stringContaining("as many as a public key may open (2)") });
    expect((await create(pk(m), {}, "/api/v1/sandbox/payments")).status).toBe(409);

    // The merchant's own server keeps its room: the public key cannot take it.
    const third = await create(sk(m));
    expect(third.status).toBe(201);
    expect((await create(sk(m))).status).toBe(201);
    const refused = await create(sk(m));
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe("open_payments_limit");
    expect(refused.body.message).toContain("as many as it may have (4)");
    expect(await api.db.$count(payments, and(eq(payments.merchantId, m.id), eq(payments.status, "pending")))).toBe(4);

    // A retry of a payment already made is still answered (it opens nothing).
    const retry = await api.request("/api/v1/payments/create", { headers: sk(m), body: { amount: "3", currency: "USDC", network: "anvil", orderId: third.body.payment.orderId } });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");

    // One ends: after the count's second of caching, there is room again.
    expect((await api.request("/api/v1/payments/fail", { headers: sk(m), body: { paymentId: third.body.payment.id, status: "cancelled" } })).status).toBe(200);
    await Bun.sleep(1_100);
    expect((await create(sk(m))).status).toBe(201);
  });

  test("per merchant: another merchant's open payments do not count", async () => {
    const m = await merchantOf("Fresh");
    expect((await create(pk(m))).status).toBe(201);
  });
});

describe("expiresIn: a public key may ask less than key + secret", () => {
  const day = 24 * 3600;
  test("public key: up to 24 h (400 naming expiresIn beyond); key + secret: up to PAYMENT_MAX_EXPIRES_IN", async () => {
    const m = await merchantOf("Long-lived");
    const atMost = await create(pk(m), { expiresIn: day });
    expect(atMost.status).toBe(201);
    expect(Date.parse(atMost.body.payment.expiresAt) - Date.parse(atMost.body.payment.createdAt)).toBe(day * 1000);
    const over = await create(pk(m), { expiresIn: day + 1 });
    expect(over.status).toBe(400);
    expect(over.body).toEqual({
      success: false,
      error: "invalid_request",
      message: `Invalid field 'expiresIn': seconds between 60 and ${day} with a public key (up to ${7 * day} with the API key and secret)`,
    });
    expect((await create(sk(m), { expiresIn: day + 1 })).status).toBe(201);
    expect((await create(sk(m), { expiresIn: 7 * day + 1 })).status).toBe(400);
  });
});

describe("the body fingerprint is a retry only within IDEMPOTENCY_BODY_WINDOW_SECONDS (2 s here)", () => {
  // No Idempotency-Key, no orderId: the whole body is the key (spec rule 3).
  const cart = { amount: "12.5", currency: "USDC", network: "anvil", metadata: { cart: "2× mug" } };

  test("within the window: the same payment (a replay); after it: a new payment for the identical body", async () => {
    const m = await merchantOf("Identical carts");
    const first = await api.request("/api/v1/payments/create", { headers: pk(m), body: cart });
    expect(first.status).toBe(201);
    const retry = await api.request("/api/v1/payments/create", { headers: pk(m), body: cart });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("Idempotent-Replayed")).toBe("true");
    expect(retry.body.payment.id).toBe(first.body.payment.id);

    await Bun.sleep(2_100);
    const second = await api.request("/api/v1/payments/create", { headers: pk(m), body: cart });
    expect(second.status).toBe(201);
    expect(second.headers.get("Idempotent-Replayed")).toBeNull();
    expect(second.body.payment.id).not.toBe(first.body.payment.id);
    // The new payment holds the key now: its own retries replay it.
    const again = await api.request("/api/v1/payments/create", { headers: pk(m), body: cart });
    expect(again.body.payment.id).toBe(second.body.payment.id);
  }, 20_000);

  test("concurrent identical bodies after the window: one new payment, the rest replay it", async () => {
    const m = await merchantOf("Concurrent carts");
    const first = await api.request("/api/v1/deposits/create", { headers: pk(m), body: cart });
    expect(first.status).toBe(201);
    await Bun.sleep(2_100);
    const answers = await Promise.all(Array.from({ length: 8 }, () => api.request("/api/v1/deposits/create", { headers: pk(m), body: cart })));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    const ids = new Set(answers.map((a) => a.body.payment.id));
    expect(ids.size).toBe(1);
    expect(ids.has(first.body.payment.id)).toBe(false);
    expect(await api.db.$count(payments, eq(payments.merchantId, m.id))).toBe(2);
  }, 20_000);

  test("Idempotency-Key and orderId keep replaying after the window", async () => {
    const m = await merchantOf("Keyed");
    const key = `k-${randomUUID()}`;
    const byKey = await api.request("/api/v1/payments/create", { headers: { ...pk(m), "Idempotency-Key": key }, body: cart });
    const byOrder = await api.request("/api/v1/payments/create", { headers: pk(m), body: { ...cart, orderId: `order-${key}` } });
    expect([byKey.status, byOrder.status]).toEqual([201, 201]);
    await Bun.sleep(2_100);
    const keyRetry = await api.request("/api/v1/payments/create", { headers: { ...pk(m), "Idempotency-Key": key }, body: cart });
    const orderRetry = await api.request("/api/v1/payments/create", { headers: pk(m), body: { ...cart, orderId: `order-${key}` } });
    expect(keyRetry.body.payment.id).toBe(byKey.body.payment.id);
    expect(orderRetry.body.payment.id).toBe(byOrder.body.payment.id);
    expect([keyRetry.headers.get("Idempotent-Replayed"), orderRetry.headers.get("Idempotent-Replayed")]).toEqual(["true", "true"]);
  }, 20_000);
});

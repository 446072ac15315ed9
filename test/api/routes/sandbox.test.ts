import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { payments, simulatedCredits } from "../../../db/schema/index.ts";
import { setSettlementWallet } from "../../../db/settlementWallets.ts";
import { reconcilePayments } from "../../../reconcile/index.ts";
import { simulatedTxHash } from "../../../api/services/simulatePayment.ts";
import { merchantWallet, operatorKey, startPaymentChain, type PaymentChain } from "../../../harness/paymentChain.ts";
import { insertPaymentRows, paymentRowFactory } from "../../../harness/paymentRows.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../../harness/testApi.ts";

/**
 * The sandbox: test-payment creation and every row of the spec's simulation table,
 * against a real app and a real anvil (payments are created as they would be for real;
 * the simulated outcome goes through the same reconciliation as chain evidence).
 */

let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  chain = await startPaymentChain();
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  [merchant, other] = await Promise.all([api.seedMerchant("Sandbox merchant"), api.seedMerchant("Other")]);
  const anvil = api.config.networks.find((n) => n.shortName === "anvil")!;
  await setSettlementWallet(api.db, merchant.id, anvil.id, merchantWallet);
  await setSettlementWallet(api.db, other.id, anvil.id, merchantWallet);
}, 60_000);

afterAll(async () => {
  await api?.close();
  await chain?.stop();
});

const pk = (m: TestMerchant = merchant) => ({ "x-public-key": m.publicKey });
const body = (extra: Record<string, unknown> = {}) => ({ amount: "25.50", currency: "USDC", network: "anvil", orderId: `order-${randomUUID()}`, ...extra });

async function createTestPayment(m: TestMerchant = merchant, extra: Record<string, unknown> = {}) {
  const response = await api.request("/api/v1/sandbox/payments", { headers: pk(m), body: body(extra) });
  expect(response.status).toBe(201);
  return response.body.payment as { id: string; status: string; isTest: boolean; amount: string };
}

const simulate = (id: string, payload: unknown, headers: Record<string, string> = pk()) =>
  api.request(`/api/v1/sandbox/payments/${id}/simulate`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: payload === undefined ? undefined : JSON.stringify(payload) });

const statusOf = async (id: string) => (await api.request(`/api/v1/payments/${id}/status`, { headers: pk() })).body.payment;

describe("POST /sandbox/payments", () => {
  test("a test public key creates a test payment with the /payments/create body", async () => {
    const response = await api.request("/api/v1/sandbox/payments", { headers: pk(), body: body({ metadata: { cart: "7" } }) });
    expect(response.status).toBe(201);
    expect(response.body.success).toBe(true);
    expect(response.body.payment).toMatchObject({ status: "pending", isTest: true, amount: "25.5", currency: "USDC", network: "anvil", metadata: { cart: "7" } });
    const [row] = await api.db.select().from(payments).where(eq(payments.id, response.body.payment.id));
    expect(row).toMatchObject({ mode: "test", isTest: true, merchantId: merchant.id });
  });

  test("the unversioned path and a test API key + secret work too", async () => {
    const unversioned = await api.request("/api/sandbox/payments", { headers: pk(), body: body() });
    expect(unversioned.status).toBe(201);
    const bySecret = await api.request("/api/v1/sandbox/payments", { headers: { "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret }, body: body() });
    expect(bySecret.status).toBe(201);
    expect(bySecret.body.payment.isTest).toBe(true);
  });

  test("live keys → 403; no or bad credentials → 401", async () => {
    const live = await api.request("/api/v1/sandbox/payments", { headers: { "x-public-key": merchant.livePublicKey }, body: body() });
    expect(live.status).toBe(403);
    expect(live.body).toMatchObject({ success: false, error: "forbidden" });
    const liveSecret = await api.request("/api/v1/sandbox/payments", { headers: { "x-api-key": merchant.apiKey, "x-api-secret": merchant.apiSecret }, body: body() });
    expect(liveSecret.status).toBe(403);
    expect((await api.request("/api/v1/sandbox/payments", { body: body() })).status).toBe(401);
    expect((await api.request("/api/v1/sandbox/payments", { headers: { "x-public-key": "pk_test_nope" }, body: body() })).status).toBe(401);
  });

  test("validation is the same as /payments/create", async () => {
    const response = await api.request("/api/v1/sandbox/payments", { headers: pk(), body: body({ amount: "-1" }) });
    expect(response.status).toBe(400);
    expect(response.body.message).toContain("'amount'");
  });

  test("idempotency: its own scope, replayed within it", async () => {
    const key = `k-${randomUUID()}`;
    const payload = body();
    const first = await api.request("/api/v1/sandbox/payments", { headers: { ...pk(), "Idempotency-Key": key }, body: payload });
    const again = await api.request("/api/sandbox/payments", { headers: { ...pk(), "Idempotency-Key": key }, body: payload });
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.body.payment.id).toBe(first.body.payment.id);
    const elsewhere = await api.request("/api/v1/payments/create", { headers: { ...pk(), "Idempotency-Key": key }, body: payload });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.payment.id).not.toBe(first.body.payment.id);
  });
});

describe("POST /sandbox/payments/{paymentId}/simulate: the spec's table", () => {
  test("pending + action complete → completed, with isTest and transactionHash", async () => {
    const p = await createTestPayment();
    const response = await simulate(p.id, { action: "complete" });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      success: true,
      message: "Payment completed (simulated)",
      payment: { id: p.id, status: "completed", isTest: true, transactionHash: simulatedTxHash(p.id, "completed") },
    });
    expect(response.body.payment.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);

    // The same state a real payment reaches: received in full, fully confirmed.
    const status = await statusOf(p.id);
    expect(status).toMatchObject({ status: "completed", amount: "25.5", amountReceived: "25.5", amountRemaining: "0", confirmations: 3, transactionHash: response.body.payment.transactionHash });
    expect(status.detectedAt).not.toBeNull();
    expect(status.confirmedAt).not.toBeNull();
    const [row] = await api.db.select().from(payments).where(eq(payments.id, p.id));
    expect(row).toMatchObject({ status: "completed", completedVia: "simulation", excessOwed: 0n, closedStatus: null });

    // Reconciling again (what the workers do on every recheck) changes nothing.
    const again = await reconcilePayments(api.db, api.config, [p.id]);
    expect(again.get(p.id)!.changed).toBe(false);
    expect(again.get(p.id)!.after.status).toBe("completed");
  });

  const failures: Array<[string, unknown]> = [
    ["another action value", { action: "fail" }],
    ["an empty action", { action: "" }],
    ["a differently cased action", { action: "Complete" }],
    ["action with spaces", { action: " complete " }],
    ["a non-string action", { action: true }],
    ["a null action", { action: null }],
    ["an array action", { action: ["complete"] }],
    ["a missing field", {}],
    ["a misnamed field", { status: "complete" }],
    ["no body at all", undefined],
    ["a JSON string body", "complete"],
    ["a JSON array body", [{ action: "complete" }]],
  ];
  for (const [name, payload] of failures) {
    test(`pending + ${name} → failed, answered 200 as a normal result`, async () => {
      const p = await createTestPayment();
      const response = await simulate(p.id, payload);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        success: true,
        message: "Payment failed (simulated)",
        payment: { id: p.id, status: "failed", isTest: true, transactionHash: simulatedTxHash(p.id, "failed") },
      });
      const status = await statusOf(p.id);
      expect(status).toMatchObject({ status: "failed", amountReceived: "0", confirmations: 0 });
      const [row] = await api.db.select().from(payments).where(eq(payments.id, p.id));
      expect(row!.closedStatus).toBe("failed");
      expect(row!.closedReason).toStartWith("Simulated failure (sandbox)");
    });
  }

  test("a second simulation → 400 Payment already completed / Payment already failed, state unchanged", async () => {
    const completed = await createTestPayment();
    await simulate(completed.id, { action: "complete" });
    for (const payload of [{ action: "complete" }, { action: "fail" }, {}]) {
      const response = await simulate(completed.id, payload);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ success: false, message: "Payment already completed" });
    }
    expect((await statusOf(completed.id)).status).toBe("completed");

    const failed = await createTestPayment();
    await simulate(failed.id, { action: "nope" });
    for (const payload of [{ action: "complete" }, { action: "nope" }]) {
      const response = await simulate(failed.id, payload);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ success: false, message: "Payment already failed" });
    }
    expect((await statusOf(failed.id)).status).toBe("failed");
    expect((await api.db.select().from(simulatedCredits).where(eq(simulatedCredits.paymentId, failed.id))).length).toBe(0);
  });

  test("concurrent simulations: exactly one wins", async () => {
    const p = await createTestPayment();
    const responses = await Promise.all([simulate(p.id, { action: "complete" }), simulate(p.id, { action: "complete" }), simulate(p.id, { action: "x" })]);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    const winner = responses.find((r) => r.status === 200)!;
    for (const r of responses.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(400);
      expect(r.body.message).toBe(`Payment already ${winner.body.payment.status}`);
    }
    expect((await statusOf(p.id)).status).toBe(winner.body.payment.status);
  });

  test("a payment that is no longer pending for another reason → 400 naming its state", async () => {
    const expired = await createTestPayment();
    await api.db.execute(sql`update payments set expires_at = now() - interval '1 second' where id = ${expired.id}`);
    const response = await simulate(expired.id, { action: "complete" });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe("Payment already expired");

    const cancelled = await createTestPayment();
    await api.request("/api/v1/payments/fail", { headers: pk(), body: { paymentId: cancelled.id, status: "cancelled" } });
    expect((await simulate(cancelled.id, { action: "complete" })).body.message).toBe("Payment already cancelled");
  });

  // BUG: with the chain's ingest stalled, expiry waits and the payment stays pending past its
  // expiresAt; a simulation then "completed" it into expired, owing the whole amount back.
  test("past its expiry but held pending by a stalled chain → 400 Payment already expired, nothing credited", async () => {
    const late = await createTestPayment();
    const chainId = api.config.networks.find((n) => n.shortName === "anvil")!.chainId;
    await api.db.execute(sql`insert into ingest_watch (chain_id, checked_at, stalled_since) values (${chainId}, now(), now() - interval '1 hour')
      on conflict (chain_id) do update set stalled_since = excluded.stalled_since`);
    try {
      await api.db.execute(sql`update payments set expires_at = now() - interval '1 second' where id = ${late.id}`);
      const response = await simulate(late.id, { action: "complete" });
      expect([response.status, response.body.message]).toEqual([400, "Payment already expired"]);
      expect(await api.db.select().from(simulatedCredits).where(eq(simulatedCredits.paymentId, late.id))).toEqual([]);
      expect((await statusOf(late.id)).status).toBe("pending");
    } finally {
      await api.db.execute(sql`update ingest_watch set stalled_since = null where chain_id = ${chainId}`);
    }
  });

  test("malformed JSON is a 400 (not an outcome), and the payment stays pending", async () => {
    const p = await createTestPayment();
    const response = await api.request(`/api/v1/sandbox/payments/${p.id}/simulate`, { headers: pk(), body: '{"action": "complete"' });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, error: "invalid_request" });
    expect((await statusOf(p.id)).status).toBe("pending");
  });

  test("unknown test payment → 404 {success:false}", async () => {
    // BUG: an id past 100 characters failed the path's schema: 400, and before the key was checked.
    const cases = [randomUUID(), "not-a-uuid", "00000000-0000-0000-0000-000000000000", "a".repeat(101)];
    for (const id of cases) {
      const response = await simulate(id, { action: "complete" });
      expect(response.status).toBe(404);
      expect(response.body.success).toBe(false);
    }
    expect((await simulate("a".repeat(101), { action: "complete" }, { "x-public-key": "pk_test_nope" })).status).toBe(401);
  });

  test("another merchant's test payment, or a live payment → 404", async () => {
    const foreign = await createTestPayment(other);
    expect((await simulate(foreign.id, { action: "complete" })).status).toBe(404);
    const [live] = await insertPaymentRows(api.db, [paymentRowFactory(api.config)(merchant.id, { network: "base" })]);
    const response = await simulate(live!.id!, { action: "complete" });
    expect(response.status).toBe(404);
    expect(response.body.success).toBe(false);
    // Even a stray simulated credit is never read for a live payment.
    await api.db.insert(simulatedCredits).values({ paymentId: live!.id!, txHash: "0x00", amount: 1_000_000n, createdAt: new Date() });
    const reconciled = await reconcilePayments(api.db, api.config, [live!.id!]);
    expect(reconciled.get(live!.id!)!.after).toMatchObject({ status: "pending", amountReceived: 0n });
  });

  test("bad credentials → 401; a live key → 403", async () => {
    const p = await createTestPayment();
    expect((await simulate(p.id, { action: "complete" }, {})).status).toBe(401);
    expect((await simulate(p.id, { action: "complete" }, { "x-public-key": "pk_test_wrong" })).status).toBe(401);
    expect((await simulate(p.id, { action: "complete" }, { "x-api-key": merchant.testApiKey, "x-api-secret": "wrong" })).status).toBe(401);
    const live = await simulate(p.id, { action: "complete" }, { "x-public-key": merchant.livePublicKey });
    expect(live.status).toBe(403);
    expect((await statusOf(p.id)).status).toBe("pending");
    // A test API key + secret may simulate.
    const bySecret = await simulate(p.id, { action: "complete" }, { "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret });
    expect(bySecret.status).toBe(200);
  });

  test("a test payment from /payments/create can be simulated too; the unversioned path works", async () => {
    const created = await api.request("/api/v1/payments/create", { headers: pk(), body: body() });
    const response = await api.request(`/api/sandbox/payments/${created.body.payment.id}/simulate`, { headers: pk(), body: { action: "complete" } });
    expect(response.status).toBe(200);
    expect(response.body.payment.status).toBe("completed");
  });

  test("simulated outcomes count in the account statistics like real ones", async () => {
    const stats = await api.request("/api/v1/payments/merchant/stats?statusFilter=completed", { headers: pk() });
    expect(stats.status).toBe(200);
    const [{ n }] = (await api.db.execute(
      sql`select count(*)::int as n from payments where merchant_id = ${merchant.id} and mode = 'test' and status = 'completed' and completed_via = 'simulation'`,
    )) as unknown as [{ n: number }];
    expect(stats.body.stats.completedPayments).toBe(n);
    expect(n).toBeGreaterThanOrEqual(4);
  });
});

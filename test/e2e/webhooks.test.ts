import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Address, Hex } from "viem";
import { createLogger } from "../../config/logger.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { verifyWebhook } from "../../domain/webhookSignature.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { startWebhookReceiver, waitUntil, type WebhookReceiver } from "../../harness/webhookReceiver.ts";

/**
 * The headline of webhooks: a real wallet pays on anvil, the real Ponder indexer
 * records it, the workers reconcile the payment and deliver signed Standard Webhooks
 * for every step to a loopback receiver (a registered endpoint and the payment's
 * callbackUrl), and the same events are in the feed in order.
 */
let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let receiver: WebhookReceiver;
let endpoint: { id: string; secret: string };
let callbackSecret: string;

const serverAuth = () => ({ "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret });

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 3 });
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant();
  const network = api.config.networks.find((n) => n.shortName === "anvil")!;
  await setSettlementWallet(api.db, merchant.id, network.id, merchantWallet);
  receiver = startWebhookReceiver(() => 200);
  const created = await api.request("/api/v1/webhook-endpoints", { headers: serverAuth(), body: { url: receiver.url("/endpoint") } });
  expect(created.status).toBe(201);
  endpoint = created.body.endpoint;
  callbackSecret = (await api.request("/api/v1/webhook-secret", { headers: serverAuth() })).body.secret;
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  workers = await startWorkers({ config: api.config, db: api.db, logger: createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" }), databaseUrl: api.databaseUrl });
}, 120_000);

afterAll(async () => {
  const step = async (name: string, fn: () => Promise<unknown> | undefined) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const slow = new Promise((resolve) => (timer = setTimeout(() => resolve(console.error(`teardown step "${name}" took over 15 s`)), 15_000)));
    await Promise.race([fn(), slow]);
    clearTimeout(timer);
  };
  await step("workers", () => workers?.close());
  await step("indexer", () => indexer?.stop());
  await step("receiver", async () => receiver?.stop());
  await step("api", () => api?.close());
  await step("chain", () => chain?.stop());
});

type Delivered = { id: string; type: string; timestamp: string; paymentId: string; data: { payment: { id: string; status: string; amountReceived: string; confirmations: number } } };

/** What arrived for a payment at `path`, each signature checked with `secret`. */
function receivedFor(path: string, paymentId: string, secret: string) {
  return receiver
    .at(path)
    .map((r) => ({ headers: r.headers, event: verifyWebhook(r.body, r.headers, secret) as Delivered }))
    .filter((r) => r.event.paymentId === paymentId);
}

async function pay(payment: { transactions: Array<{ to: Address; data: Hex }> }) {
  for (const tx of payment.transactions) {
    const hash = await chain.customerWallet.sendTransaction({ to: tx.to, data: tx.data, account: customer, chain: null });
    await chain.publicClient.waitForTransactionReceipt({ hash });
  }
}

async function createPayment(amount: string) {
  const response = await api.request("/api/v1/payments/create", {
    headers: { "x-public-key": merchant.publicKey },
    body: { amount, currency: "USDC", network: "anvil", callbackUrl: receiver.url("/callback") },
  });
  expect(response.status).toBe(201);
  return response.body.payment as { id: string; transactions: Array<{ to: Address; data: Hex }> };
}

async function feedOf(paymentId: string) {
  const response = await api.request(`/api/v1/events?paymentId=${paymentId}&limit=100`, { headers: serverAuth() });
  expect(response.status).toBe(200);
  return response.body.events as Array<{ id: string; type: string; data: { payment: { status: string } } }>;
}

describe("paying on anvil produces signed webhooks and a feed", () => {
  test("created → detected → confirmed → completed, at the endpoint and the callbackUrl, signed, and in the feed in order", async () => {
    const payment = await createPayment("25.50");
    await pay(payment);
    // Confirming happens with the payment's block; two more blocks complete it (3 confirmations).
    await waitUntil("confirming", async () => (await feedOf(payment.id)).some((e) => e.type === "payment.confirmed"), 30_000);
    await chain.mine(2);
    const expected = ["payment.created", "payment.detected", "payment.confirmed", "payment.completed"];
    await waitUntil(
      "all four events at both targets",
      () => receivedFor("/endpoint", payment.id, endpoint.secret).length === 4 && receivedFor("/callback", payment.id, callbackSecret).length === 4,
      30_000,
    );

    const feed = await feedOf(payment.id);
    expect(feed.map((e) => e.type)).toEqual(expected);
    expect(feed.map((e) => e.data.payment.status)).toEqual(["pending", "confirming", "confirming", "completed"]);

    for (const [path, secret] of [["/endpoint", endpoint.secret], ["/callback", callbackSecret]] as const) {
      const got = receivedFor(path, payment.id, secret);
      // Each event exactly once (every target answered 200 the first time), webhook-id = the event id.
      expect(got.map((r) => r.event.type).sort()).toEqual([...expected].sort());
      for (const r of got) {
        expect(r.headers["webhook-id"]).toBe(r.event.id);
        expect(feed.map((e) => e.id)).toContain(r.event.id);
        expect(Math.abs(Number(r.headers["webhook-timestamp"]) * 1000 - Date.now())).toBeLessThan(60_000);
      }
      const completed = got.find((r) => r.event.type === "payment.completed")!.event;
      expect(completed.data.payment).toMatchObject({ id: payment.id, status: "completed", amountReceived: "25.5", confirmations: 3 });
    }

    // The attempt log shows one 200 per delivery.
    const completedId = feed.at(-1)!.id;
    // A receiver has the request before the worker records its answer: read once both are recorded.
    const delivered = (d: { status: string }) => d.status === "delivered";
    let detail = await api.request(`/api/v1/events/${completedId}`, { headers: serverAuth() });
    await waitUntil(
      "both deliveries recorded",
      async () => (detail = await api.request(`/api/v1/events/${completedId}`, { headers: serverAuth() })).body.deliveries.filter(delivered).length === 2,
      10_000,
    );
    expect(detail.body.deliveries.map((d: { target: string; status: string; attempts: number }) => [d.target, d.status, d.attempts]).sort()).toEqual([
      ["callback_url", "delivered", 1],
      ["endpoint", "delivered", 1],
    ]);
  }, 90_000);

  test("a reorg that removes the payment sends payment.reverted", async () => {
    const payment = await createPayment("3.25");
    const snapshot = await chain.rpc<Hex>("evm_snapshot");
    await pay(payment);
    await waitUntil("confirmed", async () => (await feedOf(payment.id)).some((e) => e.type === "payment.confirmed"), 30_000);
    expect(await chain.rpc<boolean>("evm_revert", [snapshot])).toBe(true);
    await chain.mine(5);
    await waitUntil("reverted at the endpoint", () => receivedFor("/endpoint", payment.id, endpoint.secret).some((r) => r.event.type === "payment.reverted"), 40_000);
    const feed = await feedOf(payment.id);
    expect(feed.map((e) => e.type)).toEqual(["payment.created", "payment.detected", "payment.confirmed", "payment.reverted"]);
    expect(feed.at(-1)!.data.payment.status).toBe("pending");
  }, 90_000);
});

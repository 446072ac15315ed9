import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { erc20Abi, type Address } from "viem";
import { createLogger } from "../../config/logger.ts";
import { payments } from "../../db/schema/index.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { QueueUnavailableError } from "../../domain/errors.ts";
import { openQueue, QUEUES } from "../../jobs/queues.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { startPrivateRedis, type PrivateRedis } from "../../harness/privateRedis.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * Issue 16, "Redis down → POST /payments/create hangs": with the queue's Redis killed
 * (a redis-server of this test's own), a create still answers 201 promptly (Postgres is
 * the truth), status reads keep answering, what needs Redis answers 503; once Redis is
 * back (empty: no persistence) the payment created and paid during the outage completes.
 */
let chain: PaymentChain;
let redis: PrivateRedis;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let usdc: Address;
const OPERATOR = "fault-operator-token-0123456789";

beforeAll(async () => {
  [chain, redis] = await Promise.all([startPaymentChain({ requiredConfirmations: 1 }), startPrivateRedis()]);
  usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey, REDIS_URL: redis.url, OPERATOR_TOKEN: OPERATOR } });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  workers = await startWorkers({ config: api.config, db: api.db, logger: createLogger({ level: "silent" }), databaseUrl: api.databaseUrl });
}, 120_000);

afterAll(async () => {
  const bounded = (p: Promise<unknown> | undefined) => Promise.race([p, Bun.sleep(10_000)]);
  if (!redis?.running()) await redis?.start();
  await bounded(workers?.close());
  await bounded(indexer?.stop());
  await bounded(api?.close());
  await bounded(chain?.stop());
  await redis?.stop();
});

const headers = () => ({ "x-public-key": merchant.publicKey });

async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await Bun.sleep(100);
  }
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work();
  return { value, ms: performance.now() - started };
}

test("Redis killed: create answers 201 at once, reads answer, prompts fail fast; after Redis returns the payment completes", async () => {
  await redis.kill();

  // Creates: each answered within ~1 s (QUEUE_TIMEOUT_MS) with the committed payment.
  const created: Array<{ id: string; depositAddress: Address }> = [];
  for (let i = 0; i < 3; i++) {
    const { value: response, ms } = await timed(() =>
      api.request("/api/v1/deposits/create", { headers: headers(), body: { amount: "4", currency: "USDC", network: "anvil", orderId: `redis-down-${i}` } }),
    );
    expect(response.status).toBe(201);
    expect(ms).toBeLessThan(2_000);
    created.push(response.body.payment);
    const [row] = await api.db.select({ status: payments.status }).from(payments).where(eq(payments.id, response.body.payment.id));
    expect(row?.status).toBe("pending");
  }
  const payment = await timed(() =>
    api.request("/api/v1/payments/create", { headers: headers(), body: { amount: "1", currency: "USDC", network: "anvil", orderId: "redis-down-payment" } }),
  );
  expect(payment.value.status).toBe(201);
  expect(payment.ms).toBeLessThan(2_000);

  // Status reads come from Postgres; health says the queue is down (503), promptly.
  const status = await timed(() => api.request(`/api/v1/deposits/status/${created[0]!.id}`, { headers: headers() }));
  expect(status.value.status).toBe(200);
  expect(status.ms).toBeLessThan(1_000);
  const health = await timed(() => api.request("/api/health"));
  expect(health.value.status).toBe(503);
  expect(health.ms).toBeLessThan(3_000);

  // A prompt fails fast with the typed error (503 through the error plugin).
  const prompt = await timed(() => api.deps.prompts.refund("00000000-0000-0000-0000-000000000000").catch((e: unknown) => e));
  expect(prompt.value).toBeInstanceOf(QueueUnavailableError);
  expect(prompt.ms).toBeLessThan(2_000);

  // The queue dashboard reads Redis: a prompt 503, not a hang or a 500.
  const dashboard = await timed(() => api.request("/admin/queues/api/queues?activeQueue=reconcile&page=1", { headers: { authorization: `Bearer ${OPERATOR}` } }));
  expect(dashboard.value.status).toBe(503);
  expect(dashboard.value.body).toMatchObject({ success: false, error: "service_unavailable" });
  expect(dashboard.ms).toBeLessThan(2_000);

  // The customer pays while Redis is still down.
  const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [created[0]!.depositAddress, 4_000_000n], account: customer, chain: null });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  await chain.mine(2);
  await Bun.sleep(1_000);

  // Redis returns empty; the paid deposit completes (prompts buffered by the worker, or the re-declared recheck).
  await redis.start();
  const returned = Date.now();
  for (;;) {
    const [row] = await api.db.select({ status: payments.status }).from(payments).where(eq(payments.id, created[0]!.id));
    if (row?.status === "completed") break;
    if (Date.now() - returned > 40_000) throw new Error(`deposit still ${row?.status} 40 s after Redis returned`);
    await Bun.sleep(200);
  }
  // The API's prompts and the dashboard work again without a restart.
  await eventually(async () => (await api.request("/admin/queues/api/queues?activeQueue=reconcile&page=1", { headers: { authorization: `Bearer ${OPERATOR}` } })).status === 200);
  await api.deps.prompts.reconcile([created[1]!.id], "after-outage");
  // And the recheck schedule exists again in the emptied Redis (declared on reconnect).
  const maintenance = openQueue(api.config, QUEUES.maintenance);
  try {
    const keys = async () => (await maintenance.getJobSchedulers()).map((s) => s.key).sort();
    const deadline = Date.now() + 10_000;
    while ((await keys()).length < 2 && Date.now() < deadline) await Bun.sleep(100);
    expect(await keys()).toEqual(["idempotency-cleanup", "recheck"]);
  } finally {
    await maintenance.close();
  }
}, 90_000);

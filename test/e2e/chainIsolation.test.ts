import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { erc20Abi, type Address, type Hex } from "viem";
import { createLogger } from "../../config/logger.ts";
import { queryRows } from "../../db/client.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { watchIngest } from "../../reconcile/index.ts";
import { faultRpcProxy } from "../helpers/faultRpcProxy.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../helpers/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../helpers/testApi.ts";

/**
 * Issue 44: EVM chains fail alone. Two anvils, each indexed by its own Ponder; chain B is
 * reached through a proxy that plays its node dead (connections refused), and B's Ponder is
 * killed meanwhile, so its supervisor keeps trying to start it against a dead node. Chain A's payments
 * complete as usual, B's open payment (paid meanwhile) neither completes nor expires and
 * `/payments/health` names B; the node back, B's Ponder is started again by its supervisor,
 * the payment completes, and nothing is credited twice.
 */
let a: PaymentChain;
let b: PaymentChain;
let proxy: Awaited<ReturnType<typeof faultRpcProxy>>;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let mining: ReturnType<typeof setInterval>;
const logger = createLogger({ level: "silent" });

beforeAll(async () => {
  [a, b] = await Promise.all([startPaymentChain({ chainId: 31337, shortName: "anvil", requiredConfirmations: 2 }), startPaymentChain({ chainId: 31338, shortName: "anvil-2", requiredConfirmations: 2 })]);
  proxy = await faultRpcProxy(b.anvil.rpcUrl);
  // B only through the proxy (no websocket beside it): the service sees B's node as the proxy shows it.
  const networks = [a.network, { ...b.network, name: "Anvil 2", rpcUrl: proxy.url, wsUrl: undefined }];
  const networksFile = join(mkdtempSync(join(tmpdir(), "stablepay-isolation-")), "networks.json");
  writeFileSync(networksFile, JSON.stringify({ networks }));
  api = await createTestApi({ env: { NETWORKS_FILE: networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant();
  for (const n of api.config.networks.filter((n) => n.type === "evm")) await setSettlementWallet(api.db, merchant.id, n.id, merchantWallet);
  indexer = await startTestIndexer(api.config, api.databaseUrl, networksFile);
  workers = await startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
  // Both chains make blocks, the dead one too (only the service cannot see them).
  mining = setInterval(() => void Promise.all([a.mine(1), b.mine(1)]).catch(() => {}), 300);
}, 150_000);

afterAll(async () => {
  clearInterval(mining);
  await workers?.close();
  await indexer?.stop();
  await api?.close();
  await proxy?.stop();
  await Promise.all([a?.stop(), b?.stop()]);
});

const headers = () => ({ "x-public-key": merchant.publicKey });
type Payment = { id: string; transactions: Array<{ to: Address; data: Hex }> };

async function create(network: string, amount: string): Promise<Payment> {
  const response = await api.request("/api/v1/payments/create", { headers: headers(), body: { amount, currency: "USDC", network } });
  expect(response.status).toBe(201);
  return response.body.payment as Payment;
}

async function pay(chain: PaymentChain, payment: Payment) {
  for (const tx of payment.transactions) {
    const hash = await chain.customerWallet.sendTransaction({ to: tx.to, data: tx.data, account: customer, chain: null });
    await chain.publicClient.waitForTransactionReceipt({ hash });
  }
}

const statusOf = async (id: string) => (await api.request(`/api/v1/payments/${id}/status`, { headers: headers() })).body.payment as { status: string; amountReceived: string };

async function completedWithin(id: string, ms: number) {
  const until = Date.now() + ms;
  while ((await statusOf(id)).status !== "completed") {
    if (Date.now() > until) throw new Error(`payment ${id} not completed in ${ms} ms: ${JSON.stringify(await statusOf(id))}`);
    await Bun.sleep(100);
  }
}

const health = async () => (await api.request("/api/v1/payments/health")).body as { chains: Array<{ chainId: string; rpcReachable: boolean; payable: boolean; error: string | null }> };

test("chain B's node dead: A's payments complete within 60 s, B's waits (not expired, not completed), then completes once, after", async () => {
  const onB = await create("anvil-2", "7");
  const ponderOfB = indexer.chains.find((c) => c.chainId === "31338")!;
  const pidBefore = ponderOfB.pid();
  await proxy.inject("refuse");
  const deadAt = Date.now();
  // Ponder exits when its database drops, among others: started again while its node is down, it
  // cannot start (one Ponder for all chains stopped every chain there). B's alone is killed here.
  process.kill(pidBefore!, "SIGKILL");
  await pay(b, onB); // straight to B's node: the customer's wallet does not go through the service

  const onA = await Promise.all(["1", "2", "3", "4", "5"].map((amount) => create("anvil", amount)));
  // Spread over the outage: Ponder gives up on a dead node after a while and exits, and cannot
  // start again while the node stays down; A's payments go on meanwhile.
  for (const p of onA) {
    await Bun.sleep(6_000);
    await pay(a, p);
    const paidAt = Date.now();
    await completedWithin(p.id, 60_000);
    expect(Date.now() - paidAt).toBeLessThan(60_000);
  }

  expect(Date.now() - deadAt).toBeGreaterThan(30_000);
  expect(ponderOfB.pid()).not.toBe(pidBefore);

  // B's payment is held: its node cannot be read, so the watch records a stall (expiry waits) on B alone.
  await watchIngest({ config: api.config, db: api.db, logger });
  const watch = await queryRows<{ chain_id: string; stalled: boolean }>(api.db, sql`select chain_id, stalled_since is not null as stalled from ingest_watch order by chain_id`);
  expect(watch.find((w) => w.chain_id === "31338")?.stalled).toBe(true);
  expect(watch.find((w) => w.chain_id === "31337")?.stalled ?? false).toBe(false);
  expect(await statusOf(onB.id)).toMatchObject({ status: "pending", amountReceived: "0" });
  const h = await health();
  expect(h.chains.find((c) => c.chainId === "31338")).toMatchObject({ rpcReachable: false, payable: false });
  expect(h.chains.find((c) => c.chainId === "31337")).toMatchObject({ rpcReachable: true, payable: true });

  // The node is back: B's supervisor starts its Ponder again (backoff ≤ 15 s), which reads what it missed.
  proxy.heal();
  await completedWithin(onB.id, 60_000);
  expect(await statusOf(onB.id)).toMatchObject({ status: "completed", amountReceived: "7" });
  for (const [i, p] of onA.entries()) expect(await statusOf(p.id)).toMatchObject({ status: "completed", amountReceived: String(i + 1) });
  // Each payment completed exactly once.
  const completions = await queryRows<{ payment_id: string; n: number }>(
    api.db,
    sql`select payment_id::text, count(*)::int as n from payment_events where type = 'payment.completed' group by payment_id`,
  );
  expect(completions).toHaveLength(6);
  expect(completions.every((c) => c.n === 1)).toBe(true);
  // The merchant was paid once per payment, on each chain.
  const usdc = (c: PaymentChain) => c.tokens.find((t) => t.symbol === "USDC")!.address;
  expect(await b.publicClient.readContract({ address: usdc(b), abi: erc20Abi, functionName: "balanceOf", args: [merchantWallet] })).toBeGreaterThan(0n);
}, 240_000);

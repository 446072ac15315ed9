import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createLogger } from "../../config/logger.ts";
import { queryRows } from "../../db/client.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { INDEXED_CHANNEL } from "../../rails/index.ts";
import { startSolanaSubscriber } from "../../rails/solana/ingest/startSolanaSubscriber.ts";
import { faultRpcProxy, type RpcFault } from "../../harness/faultRpcProxy.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../harness/solanaChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * Issue 44.5 on Solana: in front of the local Solana chain's RPC a proxy injects, one after
 * another, refused connections, 5xx, truncated JSON, 429s with Retry-After and answers slower
 * than the RPC timeout (the websocket stays direct: only HTTP reads fail). Meanwhile a payment on
 * an EVM chain (anvil, its own Ponder) completes as usual; a deposit paid on Solana, straight to
 * the chain, neither completes nor expires while the node is faulty, and its checkout says
 * "network delayed"; once the fault ends it completes within 30 s, credited once.
 */
const FAULTS: RpcFault[] = ["refuse", "error5xx", "truncated", "rateLimited", "slow"];

let solana: SolanaTestChain;
let proxy: Awaited<ReturnType<typeof faultRpcProxy>>;
let api: TestApi;
let merchant: TestMerchant;
let subscriber: ReturnType<typeof startSolanaSubscriber>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let evm: PaymentChain;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let mining: ReturnType<typeof setInterval>;
const deposits = new Map<RpcFault, { id: string; depositAddress: string }>();
const logger = createLogger({ level: "silent" });

beforeAll(async () => {
  [solana, evm] = await Promise.all([startSolanaTestChain({ slotMs: 25, finalityDepth: 3, blockhashValiditySlots: 40 }), startPaymentChain({ requiredConfirmations: 2 })]);
  proxy = await faultRpcProxy(solana.chain.rpcUrl);
  api = await createTestApi({
    networks: [{ ...solana.network, rpcUrl: proxy.url }],
    env: {
      NETWORKS_FILE: evm.networksFile,
      OPERATOR_PRIVATE_KEY: operatorKey,
      SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey,
      SOLANA_POLL_INTERVAL_MS: "2000",
      SOLANA_HEAD_INTERVAL_MS: "50",
    },
  });
  merchant = await api.seedMerchant();
  const network = (shortName: string) => api.config.networks.find((n) => n.shortName === shortName)!;
  await setSettlementWallet(api.db, merchant.id, network("solana-local").id, solana.merchant.publicKey.toBase58());
  await setSettlementWallet(api.db, merchant.id, network("anvil").id, merchantWallet);
  subscriber = startSolanaSubscriber({ config: api.config, db: api.db, logger, channel: INDEXED_CHANNEL });
  await subscriber.ready;
  [indexer, workers] = await Promise.all([
    startTestIndexer(api.config, api.databaseUrl, evm.networksFile),
    startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl }),
  ]);
  mining = setInterval(() => void evm.mine(1).catch(() => {}), 300);
  // Created while the node is healthy: a chain that cannot be read is not payable.
  /** A payment on the EVM chain, created and paid now; resolves once it is completed (within 20 s). */
async function evmPaymentCompletes(amount: string) {
  const created = await api.request("/api/v1/payments/create", { headers: { "x-public-key": merchant.publicKey }, body: { amount, currency: "USDC", network: "anvil" } });
  expect(created.status).toBe(201);
  for (const tx of created.body.payment.transactions as Array<{ to: `0x${string}`; data: `0x${string}` }>) {
    const hash = await evm.customerWallet.sendTransaction({ to: tx.to, data: tx.data, account: customer, chain: null });
    await evm.publicClient.waitForTransactionReceipt({ hash });
  }
  const paidAt = Date.now();
  const status = async () => (await api.request(`/api/v1/payments/${created.body.payment.id}/status`, { headers: { "x-public-key": merchant.publicKey } })).body.payment.status;
  while ((await status()) !== "completed") {
    if (Date.now() - paidAt > 20_000) throw new Error(`the EVM payment did not complete in 20 s`);
    await Bun.sleep(100);
  }
  return { id: created.body.payment.id as string, ms: Date.now() - paidAt };
}

for (const [i, fault] of FAULTS.entries()) {
    const response = await api.request("/api/v1/deposits/create", {
      headers: { "x-public-key": merchant.publicKey },
      body: { amount: String(i + 1), currency: "USDC", network: "solana-local", orderId: crypto.randomUUID() },
    });
    expect(response.status).toBe(201);
    deposits.set(fault, response.body.payment);
  }
}, 90_000);

afterAll(async () => {
  clearInterval(mining);
  await workers?.close();
  await indexer?.stop();
  await subscriber?.stop();
  await api?.close();
  await proxy?.stop();
  await solana?.stop();
  await evm?.stop();
}, 60_000);

const statusOf = async (id: string) =>
  (await api.request(`/api/v1/deposits/status/${id}`, { headers: { "x-public-key": merchant.publicKey } })).body.payment as { status: string; amountReceived: string };
const networkDelayed = async (id: string) => (await api.request(`/api/v1/payments/public/${id}`)).body.payment.networkDelayed as boolean;
const completions = async (id: string) =>
  (await queryRows<{ n: number }>(api.db, sql`select count(*)::int as n from payment_events where payment_id = ${id} and type = 'payment.completed'`))[0]!.n;

/** A payment on the EVM chain, created and paid now; resolves once it is completed (within 20 s). */
async function evmPaymentCompletes(amount: string) {
  const created = await api.request("/api/v1/payments/create", { headers: { "x-public-key": merchant.publicKey }, body: { amount, currency: "USDC", network: "anvil" } });
  expect(created.status).toBe(201);
  for (const tx of created.body.payment.transactions as Array<{ to: `0x${string}`; data: `0x${string}` }>) {
    const hash = await evm.customerWallet.sendTransaction({ to: tx.to, data: tx.data, account: customer, chain: null });
    await evm.publicClient.waitForTransactionReceipt({ hash });
  }
  const paidAt = Date.now();
  const status = async () => (await api.request(`/api/v1/payments/${created.body.payment.id}/status`, { headers: { "x-public-key": merchant.publicKey } })).body.payment.status;
  while ((await status()) !== "completed") {
    if (Date.now() - paidAt > 20_000) throw new Error(`the EVM payment did not complete in 20 s`);
    await Bun.sleep(100);
  }
  return { id: created.body.payment.id as string, ms: Date.now() - paidAt };
}

for (const [i, fault] of FAULTS.entries()) {
  test(`Solana's node: ${fault} — the EVM chain completes as usual; the deposit waits, unexpired, and completes within 30 s after, once`, async () => {
    const deposit = deposits.get(fault)!;
    await proxy.inject(fault);
    try {
      await solana.pay({ to: deposit.depositAddress, amount: BigInt(i + 1) * 1_000_000n });
      const onEvm = await evmPaymentCompletes(String(10 + i));
      console.log(`${fault}: the EVM chain's payment completed ${onEvm.ms} ms after payment`);
      expect(await completions(onEvm.id)).toBe(1);
      const until = Date.now() + 5_000;
      while (!(await networkDelayed(deposit.id))) {
        if (Date.now() > until) throw new Error(`${fault}: the checkout never said network delayed`);
        await Bun.sleep(100);
      }
      await Bun.sleep(3_000);
      expect(await statusOf(deposit.id)).toMatchObject({ status: "pending", amountReceived: "0" });
    } finally {
      proxy.heal();
    }
    const healedAt = Date.now();
    while ((await statusOf(deposit.id)).status !== "completed") {
      if (Date.now() - healedAt > 30_000) throw new Error(`${fault}: not completed 30 s after the fault: ${JSON.stringify(await statusOf(deposit.id))}`);
      await Bun.sleep(100);
    }
    console.log(`${fault}: Solana caught up ${Date.now() - healedAt} ms after the fault ended`);
    expect(await statusOf(deposit.id)).toMatchObject({ status: "completed", amountReceived: String(i + 1) });
    expect(await completions(deposit.id)).toBe(1);
  }, 60_000);
}

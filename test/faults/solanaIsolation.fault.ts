import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createLogger } from "../../config/logger.ts";
import { queryRows } from "../../db/client.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { INDEXED_CHANNEL } from "../../rails/index.ts";
import { startSolanaSubscriber } from "../../rails/solana/ingest/startSolanaSubscriber.ts";
import { faultRpcProxy, type RpcFault } from "../../harness/faultRpcProxy.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../harness/solanaChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * Issue 44.5 on Solana: in front of the local Solana chain's RPC a proxy injects, one after
 * another, refused connections, 5xx, truncated JSON, 429s with Retry-After and answers slower
 * than the RPC timeout (the websocket stays direct: only HTTP reads fail). A deposit paid
 * meanwhile, straight to the chain, neither completes nor expires while the node is faulty, its
 * checkout says "network delayed"; once the fault ends it completes within 30 s, credited once.
 */
const FAULTS: RpcFault[] = ["refuse", "error5xx", "truncated", "rateLimited", "slow"];

let solana: SolanaTestChain;
let proxy: Awaited<ReturnType<typeof faultRpcProxy>>;
let api: TestApi;
let merchant: TestMerchant;
let subscriber: ReturnType<typeof startSolanaSubscriber>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
const deposits = new Map<RpcFault, { id: string; depositAddress: string }>();
const logger = createLogger({ level: "silent" });

beforeAll(async () => {
  solana = await startSolanaTestChain({ slotMs: 25, finalityDepth: 3, blockhashValiditySlots: 40 });
  proxy = await faultRpcProxy(solana.chain.rpcUrl);
  api = await createTestApi({
    networks: [{ ...solana.network, rpcUrl: proxy.url }],
    env: { SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey, SOLANA_POLL_INTERVAL_MS: "2000", SOLANA_HEAD_INTERVAL_MS: "50" },
  });
  merchant = await api.seedMerchant();
  const network = api.config.networks.find((n) => n.shortName === "solana-local")!;
  await setSettlementWallet(api.db, merchant.id, network.id, solana.merchant.publicKey.toBase58());
  subscriber = startSolanaSubscriber({ config: api.config, db: api.db, logger, channel: INDEXED_CHANNEL });
  await subscriber.ready;
  workers = await startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
  // Created while the node is healthy: a chain that cannot be read is not payable.
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
  await workers?.close();
  await subscriber?.stop();
  await api?.close();
  await proxy?.stop();
  await solana?.stop();
}, 60_000);

const statusOf = async (id: string) =>
  (await api.request(`/api/v1/deposits/status/${id}`, { headers: { "x-public-key": merchant.publicKey } })).body.payment as { status: string; amountReceived: string };
const networkDelayed = async (id: string) => (await api.request(`/api/v1/payments/public/${id}`)).body.payment.networkDelayed as boolean;
const completions = async (id: string) =>
  (await queryRows<{ n: number }>(api.db, sql`select count(*)::int as n from payment_events where payment_id = ${id} and type = 'payment.completed'`))[0]!.n;

for (const [i, fault] of FAULTS.entries()) {
  test(`Solana's node: ${fault} — the deposit waits, unexpired, and completes within 30 s after, once`, async () => {
    const deposit = deposits.get(fault)!;
    await proxy.inject(fault);
    try {
      await solana.pay({ to: deposit.depositAddress, amount: BigInt(i + 1) * 1_000_000n });
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

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Address, Hex } from "viem";
import { createLogger } from "../../config/logger.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { type AnvilInstance, startAnvil } from "@stablepay/devchain/evm";
import { evmClient } from "../../rails/evm/client.ts";
import { evmRotation } from "../../rails/evm/transport.ts";
import { health } from "../../scripts/cli/health.ts";
import { watchProviders } from "../../rails/rpcRotation/metrics.ts";
import { renderMetrics } from "../../metrics/registry.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { startRpcProxy, type RpcProxy } from "../../harness/rpcProxy.ts";
import { rewritingRpcProxy } from "../../harness/rewritingRpcProxy.ts";

/**
 * Issue 44.2: a chain with two RPC URLs, the first a loopback proxy in front of anvil (with
 * a secret in its path, as providers' keys are), the second anvil itself. The real Ponder
 * indexer, API and workers run on that list; killing the proxy needs no operator action.
 * No websocket URL: Ponder polls, so every read it makes goes through the failover.
 */
let chain: PaymentChain;
let proxy: RpcProxy;
let wrongChain: AnvilInstance;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
const SECRET = "SECRET_PROVIDER_KEY";

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 2 });
  proxy = startRpcProxy(chain.anvil.rpcUrl);
  wrongChain = await startAnvil({ chainId: 31338 });
  const { wsUrl: _ws, ...network } = chain.network;
  const networksFile = join(mkdtempSync(join(tmpdir(), "stablepay-failover-")), "networks.json");
  writeFileSync(networksFile, JSON.stringify({ networks: [{ ...network, rpcUrl: `${proxy.url}/v2/${SECRET},${chain.anvil.rpcUrl}` }] }));
  api = await createTestApi({ env: { NETWORKS_FILE: networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, anvil().id, merchantWallet);
  indexer = await startTestIndexer(api.config, api.databaseUrl, networksFile);
  workers = await startWorkers({ config: api.config, db: api.db, logger: createLogger({ level: "silent" }), databaseUrl: api.databaseUrl });
}, 120_000);

afterAll(async () => {
  await workers?.close();
  await indexer?.stop();
  await api?.close();
  await proxy?.stop();
  await wrongChain?.stop();
  await chain?.stop();
});

const anvil = () => api.config.networks.find((n) => n.shortName === "anvil")!;
const headers = () => ({ "x-public-key": merchant.publicKey });

async function payAndComplete(amount: string) {
  const created = await api.request("/api/v1/payments/create", { headers: headers(), body: { amount, currency: "USDC", network: "anvil" } });
  expect(created.status).toBe(201);
  const payment = created.body.payment as { id: string; transactions: Array<{ to: Address; data: Hex }> };
  for (const tx of payment.transactions) {
    const hash = await chain.customerWallet.sendTransaction({ to: tx.to, data: tx.data, account: customer, chain: null });
    await chain.publicClient.waitForTransactionReceipt({ hash });
  }
  const until = Date.now() + 30_000;
  for (;;) {
    const status = (await api.request(`/api/v1/payments/${payment.id}/status`, { headers: headers() })).body.payment as { status: string; amountReceived: string };
    if (status.status === "completed") return status;
    if (Date.now() > until) throw new Error(`payment ${payment.id} stuck at ${JSON.stringify(status)}`);
    // anvil mines on transactions only: a block now and then gives the payment its confirmations.
    await chain.mine(1);
    await Bun.sleep(200);
  }
}

type HealthProvider = { provider: string; inUse: boolean; reason: string; detail: string | null };
async function providersOnHealth(): Promise<HealthProvider[]> {
  // No credentials: the checkout page's own call.
  const response = await api.request("/api/v1/payments/health");
  expect(response.status).toBe(200);
  expect(JSON.stringify(response.body)).not.toContain(SECRET);
  return response.body.chains.find((c: { network: string }) => c.network === "anvil").providers;
}

describe("two RPC URLs for one chain", () => {
  test("both answering: a payment completes and both providers are in use, shown without the path's key", async () => {
    expect(anvil().rpcUrls).toEqual([`${proxy.url}/v2/${SECRET}`, chain.anvil.rpcUrl]);
    expect(await payAndComplete("4.25")).toMatchObject({ status: "completed", amountReceived: "4.25" });
    const until = Date.now() + 10_000;
    let providers = await providersOnHealth();
    while (providers.some((p) => p.reason !== "ok") && Date.now() < until) {
      await Bun.sleep(100);
      providers = await providersOnHealth();
    }
    expect(providers.map((p) => [p.provider, p.inUse, p.reason])).toEqual([
      [proxy.url, true, "ok"],
      [chain.anvil.rpcUrl, true, "ok"],
    ]);
  }, 60_000);

  test("the first provider killed: payments complete with no operator action; health, metrics' source and the CLI name it dropped", async () => {
    await proxy.stop();
    for (const amount of ["1.5", "2.75"]) expect(await payAndComplete(amount)).toMatchObject({ status: "completed", amountReceived: amount });

    const until = Date.now() + 10_000;
    let providers = await providersOnHealth();
    while (providers[0]!.inUse && Date.now() < until) {
      await Bun.sleep(100);
      providers = await providersOnHealth();
    }
    expect(providers[0]).toMatchObject({ provider: proxy.url, inUse: false, reason: "error" });
    expect(providers[1]).toMatchObject({ provider: chain.anvil.rpcUrl, inUse: true, reason: "ok" });

    await watchProviders([anvil()]);
    const metrics = await renderMetrics();
    expect(metrics).toContain(`stablepay_rpc_provider_in_use{network="anvil",chain_id="31337",provider="${proxy.url}",reason="error"} 0`);
    expect(metrics).toContain(`stablepay_rpc_provider_in_use{network="anvil",chain_id="31337",provider="${chain.anvil.rpcUrl}",reason="ok"} 1`);
    expect(metrics).not.toContain(SECRET);

    const printed = await health({ db: api.db, config: api.config, databaseUrl: api.databaseUrl, logger: createLogger({ level: "silent" }) });
    expect(printed).toContain(`DROPPED ${proxy.url} error`);
    expect(printed).toContain(`in use  ${chain.anvil.rpcUrl} ok`);
    expect(printed).not.toContain(SECRET);
  }, 90_000);
});

describe("a provider on the wrong chain", () => {
  test("is taken out of rotation even with the highest head, and reads come from the right chain", async () => {
    await fetch(wrongChain.rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "anvil_mine", params: ["0x64"] }) });
    const urls = [wrongChain.rpcUrl, chain.anvil.rpcUrl];
    // A copy of the chain listing the wrong node first, as a misconfigured RPC_URL_31337 would.
    const network = { ...anvil(), rpcUrl: urls[0]!, rpcUrls: urls };
    const rotation = evmRotation(network, urls);
    await rotation.probeAll();
    expect(rotation.states().map((s) => [s.provider, s.inUse, s.reason, s.detail])).toEqual([
      [wrongChain.rpcUrl, false, "wrong_chain", "answers for chain 31338, not 31337"],
      [chain.anvil.rpcUrl, true, "ok", null],
    ]);
    const client = evmClient(network);
    expect(await client.getChainId()).toBe(31337);
    expect(await client.getBlockNumber()).toBe(await chain.publicClient.getBlockNumber());
  }, 30_000);
});

describe("a provider whose head stands still", () => {
  test("is dropped as stuck while another moves on, as lagging once far behind, and back once it catches up", async () => {
    let frozenAt: string | null = null;
    // A node that stopped importing blocks: it answers, but always the same head.
    const frozen = rewritingRpcProxy(chain.anvil.rpcUrl, (call, answer) => (call.method === "eth_blockNumber" && frozenAt !== null ? { ...answer, result: frozenAt } : answer));
    try {
      const urls = [frozen.url, chain.anvil.rpcUrl];
      const rotation = evmRotation({ ...anvil(), rpcUrl: urls[0]!, rpcUrls: urls }, urls);
      expect(rotation.limits.stuckMs).toBe(2_000); // a local chain's
      await rotation.probeAll();
      expect(rotation.states().map((s) => s.reason)).toEqual(["ok", "ok"]);
      frozenAt = `0x${(await chain.publicClient.getBlockNumber()).toString(16)}`;
      // One block every 300 ms: the frozen node falls behind, a block at a time.
      const until = Date.now() + 10_000;
      while (rotation.states()[0]!.reason === "ok" && Date.now() < until) {
        await chain.mine(1);
        await Bun.sleep(300);
        await rotation.probeAll();
      }
      expect(rotation.states()[0]).toMatchObject({ inUse: false, reason: "stuck" });
      expect(rotation.states()[1]).toMatchObject({ inUse: true, reason: "ok" });
      await chain.mine(25);
      await rotation.probeAll();
      expect(rotation.states()[0]).toMatchObject({ inUse: false, reason: "lagging" });

      frozenAt = null; // it caught up
      await rotation.probeAll();
      expect(rotation.states().map((s) => [s.inUse, s.reason])).toEqual([[true, "ok"], [true, "ok"]]);
    } finally {
      frozen.stop();
    }
  }, 30_000);
});

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "bun:test";
import { sql } from "drizzle-orm";
import type { Address, Hex } from "viem";
import { createLogger } from "../config/logger.ts";
import { queryRows } from "../db/client.ts";
import { setSettlementWallet } from "../db/settlementWallets.ts";
import { startWorkers } from "../jobs/worker.ts";
import { faultRpcProxy } from "./faultRpcProxy.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "./paymentChain.ts";
import { createTestApi } from "./testApi.ts";

export type Payment = { id: string; transactions: Array<{ to: Address; data: Hex }> };

/**
 * Two EVM chains for isolation tests (issue 44): anvil A (31337, `anvil`) and anvil B (31338,
 * `anvil-2`), each indexed by its own Ponder; the service reaches B only through a fault proxy
 * (`proxy.inject`), while the customer's wallet pays on B directly. The API, the workers and
 * both Ponders run; both chains make a block every 300 ms.
 */
export async function startIsolatedChains() {
  const [a, b] = await Promise.all([
    startPaymentChain({ chainId: 31337, shortName: "anvil", requiredConfirmations: 2 }),
    startPaymentChain({ chainId: 31338, shortName: "anvil-2", requiredConfirmations: 2 }),
  ]);
  const proxy = await faultRpcProxy(b.anvil.rpcUrl);
  // B only through the proxy (no websocket beside it): the service sees B's node as the proxy shows it.
  const networks = [a.network, { ...b.network, name: "Anvil 2", rpcUrl: proxy.url, wsUrl: undefined }];
  const networksFile = join(mkdtempSync(join(tmpdir(), "stablepay-isolation-")), "networks.json");
  writeFileSync(networksFile, JSON.stringify({ networks }));
  const api = await createTestApi({ env: { NETWORKS_FILE: networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  const merchant = await api.seedMerchant();
  for (const n of api.config.networks.filter((n) => n.type === "evm")) await setSettlementWallet(api.db, merchant.id, n.id, merchantWallet);
  const logger = createLogger({ level: "silent" });
  const indexer = await startTestIndexer(api.config, api.databaseUrl, networksFile);
  const workers = await startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
  const mining = setInterval(() => void Promise.all([a.mine(1), b.mine(1)]).catch(() => {}), 300);
  const headers = { "x-public-key": merchant.publicKey };

  async function create(network: "anvil" | "anvil-2", amount: string): Promise<Payment> {
    const response = await api.request("/api/v1/payments/create", { headers, body: { amount, currency: "USDC", network } });
    expect(response.status).toBe(201);
    return response.body.payment as Payment;
  }

  /** The customer pays `payment` on `chain`, straight to its node. */
  async function pay(chain: PaymentChain, payment: Payment) {
    for (const tx of payment.transactions) {
      const hash = await chain.customerWallet.sendTransaction({ to: tx.to, data: tx.data, account: customer, chain: null });
      await chain.publicClient.waitForTransactionReceipt({ hash });
    }
  }

  const statusOf = async (id: string) => (await api.request(`/api/v1/payments/${id}/status`, { headers })).body.payment as { status: string; amountReceived: string };

  async function completedWithin(id: string, ms: number) {
    const until = Date.now() + ms;
    while ((await statusOf(id)).status !== "completed") {
      if (Date.now() > until) throw new Error(`payment ${id} not completed in ${ms} ms: ${JSON.stringify(await statusOf(id))}`);
      await Bun.sleep(100);
    }
  }

  /** Per payment, how many times it completed (`payment.completed` events). */
  const completions = async () =>
    new Map(
      (await queryRows<{ payment_id: string; n: number }>(api.db, sql`select payment_id::text, count(*)::int as n from payment_events where type = 'payment.completed' group by payment_id`)).map((r) => [
        r.payment_id,
        r.n,
      ]),
    );

  const health = async () => (await api.request("/api/v1/payments/health")).body as { chains: Array<{ chainId: string; rpcReachable: boolean; payable: boolean; error: string | null }> };

  return {
    a,
    b,
    proxy,
    api,
    indexer,
    logger,
    create,
    pay,
    statusOf,
    completedWithin,
    completions,
    health,
    stop: async () => {
      clearInterval(mining);
      await workers.close();
      await indexer.stop();
      await api.close();
      await proxy.stop();
      await Promise.all([a.stop(), b.stop()]);
    },
  };
}

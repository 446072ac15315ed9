import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { erc20Abi, type Address, type Hex } from "viem";
import { createLogger } from "../../config/logger.ts";
import { queryRows } from "../../db/client.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { transfersOutOf } from "../../db/transfersOut.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * A reorg deeper than the required confirmations (3) but inside the chain's finality (10
 * blocks) takes away the transfer that completed a deposit payment: the service notices,
 * reverts the payment with `payment.reverted` flagged as after completion, raises it on
 * /payments/health, and — because deposits are swept only once final — never swept the
 * money that vanished; a new payment of it completes and is swept exactly once.
 */
let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let usdc: Address;

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 3, finalityBlocks: 10 });
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
  usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  workers = await startWorkers({ config: api.config, db: api.db, logger: createLogger({ level: "silent" }), databaseUrl: api.databaseUrl });
}, 120_000);

afterAll(async () => {
  await workers?.close();
  await indexer?.stop();
  await api?.close();
  await chain?.stop();
});

const headers = () => ({ "x-public-key": merchant.publicKey });
const statusOf = async (id: string) => (await api.request(`/api/v1/payments/${id}/status`, { headers: headers() })).body.payment;
const balanceOf = (address: Address) => chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] });

async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 40_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

async function pay(to: Address, amount: bigint): Promise<Hex> {
  const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [to, amount], account: customer, chain: null });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  return hash;
}

test("a completed payment whose transfer a 5-block reorg removes goes back to pending, flagged and unswept; paid again, it completes and is swept once", async () => {
  const created = await api.request("/api/v1/deposits/create", { headers: headers(), body: { amount: "7", currency: "USDC", network: "anvil" } });
  expect(created.status).toBe(201);
  const { id, depositAddress } = created.body.payment as { id: string; depositAddress: Address };
  const merchantBefore = await balanceOf(merchantWallet);

  const snapshot = await chain.rpc<Hex>("evm_snapshot");
  const first = await pay(depositAddress, 7_000_000n); // its own block
  await chain.mine(4); // 5 confirmations: completed (3 required), not final (10)
  expect(await until("completion", async () => ((await statusOf(id)).status === "completed" ? await statusOf(id) : undefined))).toMatchObject({
    status: "completed",
    amountReceived: "7",
    transactionHash: first,
  });
  // Not final: nothing was forwarded, whatever the sweep jobs did meanwhile.
  await Bun.sleep(500);
  expect(await transfersOutOf(api.db, id)).toEqual([]);

  // The reorg: back to before the payment's block, then a longer chain without it.
  await chain.rpc("evm_revert", [snapshot]);
  await chain.mine(7);
  // Found when the indexer has re-read the reorged blocks, or at the latest by the worker's 30 s recheck of
  // completed payments not yet final (on a busy machine that safety net is what finds it).
  const reverted = await until(
    "the revert",
    async () => {
      const s = await statusOf(id);
      return s.status === "pending" ? s : undefined;
    },
    75_000,
  );
  expect(reverted).toMatchObject({ status: "pending", amountReceived: "0", confirmations: 0, transactionHash: null });
  const [event] = await queryRows<{ payload: { reverted: { afterCompletion: boolean; previous: { status: string; transactionHash: string } } } }>(
    api.db,
    sql`select payload from payment_events where payment_id = ${id} and type = 'payment.reverted'`,
  );
  expect(event!.payload.reverted).toMatchObject({ afterCompletion: true, previous: { status: "completed", transactionHash: first } });
  const health = await api.request("/api/v1/payments/health");
  expect(health.body.status).toBe("degraded");
  expect(health.body.chains[0].revertedAfterCompletion).toMatchObject({ count: 1, recent: true });
  expect(await transfersOutOf(api.db, id)).toEqual([]);
  expect(await balanceOf(depositAddress)).toBe(0n);

  // Paid again: completes once, and once final is swept exactly once.
  const second = await pay(depositAddress, 7_000_000n);
  await chain.mine(3);
  expect(await until("completion again", async () => ((await statusOf(id)).status === "completed" ? await statusOf(id) : undefined))).toMatchObject({
    amountReceived: "7",
    transactionHash: second,
  });
  await chain.mine(10);
  const [sweep] = await until("the sweep", async () => {
    const rows = await transfersOutOf(api.db, id);
    return rows.some((r) => r.status === "confirmed") ? rows : undefined;
  });
  expect(sweep).toMatchObject({ kind: "sweep", status: "confirmed", amount: 7_000_000n });
  expect(await transfersOutOf(api.db, id)).toHaveLength(1);
  expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 7_000_000n);
  expect(await balanceOf(depositAddress)).toBe(0n);
  const completedEvents = await queryRows<{ n: number }>(api.db, sql`select count(*)::int as n from payment_events where payment_id = ${id} and type = 'payment.completed'`);
  expect(completedEvents[0]!.n).toBe(2); // once per time the evidence completed it
}, 180_000);

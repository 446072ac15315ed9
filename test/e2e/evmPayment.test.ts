import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { erc20Abi, type Address, type Hex } from "viem";
import { createLogger } from "../../config/logger.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";

/**
 * The headline flow of EVM payments: a real wallet pays through the settlement
 * contract on anvil, the real Ponder indexer records it, dispatch and reconcile move
 * the payment pending → confirming → completed as blocks are mined, and a reorg that
 * removes the payment moves it back.
 */
let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 3 });
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant();
  const network = api.config.networks.find((n) => n.shortName === "anvil")!;
  await setSettlementWallet(api.db, merchant.id, network.id, merchantWallet);
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  workers = await startWorkers({ config: api.config, db: api.db, logger: createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" }), databaseUrl: api.databaseUrl });
}, 120_000);

afterAll(async () => {
  // Each step is bounded, and one that hangs is named instead of timing the whole hook out.
  const step = async (name: string, fn: () => Promise<unknown> | undefined) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const slow = new Promise((resolve) => (timer = setTimeout(() => resolve(console.error(`teardown step "${name}" took over 15 s`)), 15_000)));
    await Promise.race([fn(), slow]);
    clearTimeout(timer);
  };
  await step("workers", () => workers?.close());
  await step("indexer", () => indexer?.stop());
  await step("api", () => api?.close());
  await step("chain", () => chain?.stop());
});

const headers = () => ({ "x-public-key": merchant.publicKey });

async function createPayment(amount: string, extra: Record<string, unknown> = {}) {
  const response = await api.request("/api/v1/payments/create", { headers: headers(), body: { amount, currency: "USDC", network: "anvil", ...extra } });
  expect(response.status).toBe(201);
  return response.body.payment as { id: string; receiveAddress: Address; transactions: Array<{ to: Address; data: Hex }> };
}

async function pay(payment: { transactions: Array<{ to: Address; data: Hex }> }): Promise<Hex> {
  let hash: Hex = "0x";
  for (const tx of payment.transactions) {
    hash = await chain.customerWallet.sendTransaction({ to: tx.to, data: tx.data, account: customer, chain: null });
    await chain.publicClient.waitForTransactionReceipt({ hash });
  }
  return hash;
}

async function statusOf(id: string) {
  const response = await api.request(`/api/v1/payments/${id}/status`, { headers: headers() });
  expect(response.status).toBe(200);
  return response.body.payment as { status: string; amountReceived: string; confirmations: number; confirmedAt: string | null };
}

async function waitFor(id: string, predicate: (p: Awaited<ReturnType<typeof statusOf>>) => boolean, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  let last = await statusOf(id);
  while (!predicate(last)) {
    if (Date.now() > until) throw new Error(`payment ${id} stuck at ${JSON.stringify(last)}`);
    await Bun.sleep(50);
    last = await statusOf(id);
  }
  return last;
}

const balanceOf = (token: Address, owner: Address) =>
  chain.publicClient.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [owner] });

describe("a wallet pays through the settlement contract", () => {
  test("pending → confirming → completed as blocks are mined, merchant paid on chain", async () => {
    const usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
    const before = await balanceOf(usdc, merchantWallet);
    const payment = await createPayment("25.50", { orderId: "order-e2e-1" });
    expect((await statusOf(payment.id)).status).toBe("pending");

    await pay(payment);
    const confirming = await waitFor(payment.id, (p) => p.status !== "pending");
    expect(confirming).toMatchObject({ status: "confirming", amountReceived: "25.5", confirmations: 1, confirmedAt: null });

    await chain.mine(1);
    expect(await waitFor(payment.id, (p) => p.confirmations === 2)).toMatchObject({ status: "confirming" });
    await chain.mine(1);
    const completed = await waitFor(payment.id, (p) => p.status === "completed");
    expect(completed.confirmations).toBe(3);
    expect(completed.confirmedAt).not.toBeNull();
    expect(await balanceOf(usdc, merchantWallet)).toBe(before + 25_500_000n);

    const full = await api.request(`/api/v1/payments/${payment.id}`, { headers: headers() });
    expect(full.body.payment.settlement).toMatchObject({ status: "settled", merchantAmount: "25.5" });
    expect(full.body.payment.transactionHash).toMatch(/^0x[0-9a-f]{64}$/);
  }, 60_000);

  test("a QR payment (plain transfer to the payment's address) is found by verify-qr", async () => {
    const usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
    const payment = await createPayment("7");
    const hash = await chain.customerWallet.writeContract({
      address: usdc,
      abi: erc20Abi,
      functionName: "transfer",
      args: [payment.receiveAddress, 7_000_000n],
      account: customer,
      chain: null,
    });
    await chain.publicClient.waitForTransactionReceipt({ hash });
    await waitFor(payment.id, (p) => p.status === "confirming");
    const verified = await api.request("/api/v1/payments/verify-qr", { headers: headers(), body: { paymentId: payment.id } });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ success: true, verified: true });

    // Once completed, the workers sweep the address to the merchant on their own.
    const before = await balanceOf(usdc, merchantWallet);
    await chain.mine(2);
    await waitFor(payment.id, (p) => p.status === "completed");
    const until = Date.now() + 20_000;
    while ((await balanceOf(usdc, payment.receiveAddress)) !== 0n && Date.now() < until) await Bun.sleep(50);
    expect(await balanceOf(usdc, payment.receiveAddress)).toBe(0n);
    expect(await balanceOf(usdc, merchantWallet)).toBe(before + 7_000_000n);
  }, 60_000);
});

describe("reorgs", () => {
  test("a reorg that removes the payment's transaction moves it back to pending", async () => {
    const payment = await createPayment("3.25");
    const snapshot = await chain.rpc<Hex>("evm_snapshot");
    await pay(payment);
    await waitFor(payment.id, (p) => p.status === "confirming");

    // Replace the chain from the snapshot with a longer one that does not contain the payment.
    expect(await chain.rpc<boolean>("evm_revert", [snapshot])).toBe(true);
    await chain.mine(5);
    const reverted = await waitFor(payment.id, (p) => p.status === "pending", 30_000);
    expect(reverted).toMatchObject({ amountReceived: "0", confirmations: 0 });
  }, 60_000);
});

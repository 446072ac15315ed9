import { afterAll, beforeAll, expect, test } from "bun:test";
import { createWalletClient, erc20Abi, http, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createLogger } from "../../config/logger.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { freshAddress } from "../../harness/tokenChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { testStablecoinAbi } from "@stablepay/devchain/evm";

/**
 * A fee-on-transfer token (USDT has the switch; here the test token's, turned on at 1%):
 * a payment is credited what its Transfers delivered, never the intent's amount. Paid 100
 * of 100, 99 arrive: the payment stays pending, 99 received — through the settlement
 * contract (indexed, and submitted to `/payments/process`) and at a deposit address.
 */
let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let usdt: Address;
const collector = freshAddress();

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 2 });
  usdt = chain.tokens.find((t) => t.symbol === "USDT")!.address;
  const owner = createWalletClient({ account: privateKeyToAccount(operatorKey), transport: http(chain.anvil.rpcUrl) });
  const hash = await owner.writeContract({ address: usdt, abi: testStablecoinAbi, functionName: "setFee", args: [100n, collector], chain: null });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  workers = await startWorkers({ config: api.config, db: api.db, logger: createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" }), databaseUrl: api.databaseUrl });
}, 120_000);

afterAll(async () => {
  await workers?.close();
  await indexer?.stop();
  await api?.close();
  await chain?.stop();
});

const headers = () => ({ "x-public-key": merchant.publicKey });
const balanceOf = (owner: Address) => chain.publicClient.readContract({ address: usdt, abi: erc20Abi, functionName: "balanceOf", args: [owner] });

async function statusOf(id: string) {
  const response = await api.request(`/api/v1/payments/${id}/status`, { headers: headers() });
  expect(response.status).toBe(200);
  return response.body.payment as { status: string; amountReceived: string };
}

async function waitFor(id: string, predicate: (p: { status: string; amountReceived: string }) => boolean, timeoutMs = 30_000) {
  const until = Date.now() + timeoutMs;
  let last = await statusOf(id);
  while (!predicate(last)) {
    if (Date.now() > until) throw new Error(`payment ${id} stuck at ${JSON.stringify(last)}`);
    await Bun.sleep(100);
    last = await statusOf(id);
  }
  return last;
}

test("paid through the settlement contract: credited the 99 that reached the merchant, not the intent's 100", async () => {
  const response = await api.request("/api/v1/payments/create", { headers: headers(), body: { amount: "100", currency: "USDT", network: "anvil" } });
  expect(response.status).toBe(201);
  const payment = response.body.payment as { id: string; transactions: Array<{ to: Address; data: Hex }> };
  const merchantBefore = await balanceOf(merchantWallet);
  let hash: Hex = "0x";
  for (const tx of payment.transactions) {
    hash = await chain.customerWallet.sendTransaction({ to: tx.to, data: tx.data, account: customer, chain: null });
    expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
  }
  expect((await balanceOf(merchantWallet)) - merchantBefore).toBe(99_000_000n); // the contract paid 100; the token delivered 99

  // Submitted by the checkout, before or after ingest: the same 99.
  const processed = await api.request("/api/v1/payments/process", { headers: headers(), body: { paymentId: payment.id, txHash: hash } });
  expect(processed.status).toBeLessThan(300);
  expect(processed.body.payment).toMatchObject({ status: "pending", amountReceived: "99" });

  await waitFor(payment.id, (p) => p.amountReceived !== "0");
  await chain.mine(4);
  await Bun.sleep(1_500);
  expect(await statusOf(payment.id)).toMatchObject({ status: "pending", amountReceived: "99" });
}, 60_000);

test("paid to a deposit address: credited the 99 that arrived (its Transfer's value), the payment pending", async () => {
  const response = await api.request("/api/v1/deposits/create", { headers: headers(), body: { amount: "100", currency: "USDT", network: "anvil", orderId: crypto.randomUUID() } });
  expect(response.status).toBe(201);
  const deposit = response.body.payment as { id: string; depositAddress: Address };
  const hash = await chain.customerWallet.writeContract({ address: usdt, abi: erc20Abi, functionName: "transfer", args: [deposit.depositAddress, 100_000_000n], account: customer, chain: null });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  expect(await balanceOf(deposit.depositAddress)).toBe(99_000_000n);
  await waitFor(deposit.id, (p) => p.amountReceived !== "0");
  await chain.mine(4);
  await Bun.sleep(1_500);
  expect(await statusOf(deposit.id)).toMatchObject({ status: "pending", amountReceived: "99" });
}, 60_000);

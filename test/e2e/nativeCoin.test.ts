import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { erc20Abi, parseEther, type Address } from "viem";
import { createLogger } from "../../config/logger.ts";
import { queryRows } from "../../db/client.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { transfersOutOf } from "../../db/transfersOut.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { sweepNativeCoin } from "../../payouts/index.ts";
import { freshAddress } from "../../harness/tokenChain.ts";
import { customer, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * Native coin (ETH) sent to an EVM deposit address: never a credit, never completes the
 * payment; once the payment ends it is forwarded to the merchant's wallet by the forwarder
 * (`deployAndSweepNative`), recorded first as a `native_sweep` and sent exactly once.
 */
let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let usdc: Address;
const wallet = freshAddress(); // the merchant's: holds nothing but what it is sent here
const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 2 });
  usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, wallet);
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  workers = await startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
}, 120_000);

afterAll(async () => {
  const bounded = (p: Promise<unknown> | undefined) => Promise.race([p, Bun.sleep(15_000)]);
  await bounded(workers?.close());
  await bounded(indexer?.stop());
  await bounded(api?.close());
  await bounded(chain?.stop());
});

const headers = () => ({ "x-public-key": merchant.publicKey });
const eth = (address: Address) => chain.publicClient.getBalance({ address });
const usdcOf = (address: Address) => chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [address] });
const sendEth = async (to: Address, value: bigint) => chain.publicClient.waitForTransactionReceipt({ hash: await chain.customerWallet.sendTransaction({ to, value, account: customer, chain: null }) });
const eventsOf = (id: string) => queryRows<{ type: string }>(api.db, sql`select type from payment_events where payment_id = ${id} order by sequence`).then((r) => r.map((e) => e.type));

async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined && value !== null && value !== false) return value as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await chain.mine(1);
    await Bun.sleep(100);
  }
}

async function createDeposit(amount: string) {
  const response = await api.request("/api/v1/deposits/create", { headers: headers(), body: { amount, currency: "USDC", network: "anvil", orderId: crypto.randomUUID() } });
  expect(response.status).toBe(201);
  return response.body.payment as { id: string; depositAddress: Address };
}
const statusOf = async (id: string) => (await api.request(`/api/v1/deposits/status/${id}`, { headers: headers() })).body.payment as { status: string; amountReceived: string };

test("ETH beside the token: the payment completes on the token alone; the token is swept, then the ETH, each once", async () => {
  const deposit = await createDeposit("5");
  await sendEth(deposit.depositAddress, parseEther("0.25"));
  await chain.mine(3);
  await Bun.sleep(500);
  expect(await statusOf(deposit.id)).toMatchObject({ status: "pending", amountReceived: "0" }); // ETH is no credit

  const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [deposit.depositAddress, 5_000_000n], account: customer, chain: null });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  await until("the ETH forwarded", async () => (await eth(wallet)) === parseEther("0.25"));
  expect(await usdcOf(wallet)).toBe(5_000_000n);
  expect(await eth(deposit.depositAddress)).toBe(0n);
  expect(await statusOf(deposit.id)).toMatchObject({ status: "completed", amountReceived: "5" });
  await until("the sweeps recorded", async () => (await transfersOutOf(api.db, deposit.id)).every((r) => r.status === "confirmed"));
  const rows = await transfersOutOf(api.db, deposit.id);
  expect(rows.map((r) => [r.kind, r.status, r.amount])).toEqual([
    ["sweep", "confirmed", 5_000_000n],
    ["native_sweep", "confirmed", parseEther("0.25")],
  ]);
  // The merchant is told of its token, not of the ETH (no payment event for it).
  expect((await eventsOf(deposit.id)).filter((t) => t === "payment.forwarded")).toHaveLength(1);

  // Asked again (a second job, the operator's command): nothing more to send.
  expect(await sweepNativeCoin({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl }, deposit.id)).toBeNull();
  expect(await transfersOutOf(api.db, deposit.id)).toHaveLength(2);
}, 90_000);

test("ETH instead of the token: the payment never completes; once it is closed, the ETH goes to the merchant", async () => {
  const deposit = await createDeposit("3");
  await sendEth(deposit.depositAddress, parseEther("0.5"));
  await chain.mine(4);
  await Bun.sleep(500);
  expect(await statusOf(deposit.id)).toMatchObject({ status: "pending", amountReceived: "0" });
  const before = await eth(wallet);
  const closed = await api.request("/api/v1/payments/fail", { headers: headers(), body: { paymentId: deposit.id, status: "cancelled" } });
  expect(closed.status).toBe(200);
  await until("the ETH forwarded", async () => (await eth(wallet)) - before === parseEther("0.5"));
  expect(await eth(deposit.depositAddress)).toBe(0n);
  // The worker records the receipt after the chain has mined it: wait for the row, not the balance.
  await until("the sweep recorded", async () => (await transfersOutOf(api.db, deposit.id)).every((r) => r.status === "confirmed"));
  expect((await transfersOutOf(api.db, deposit.id)).map((r) => [r.kind, r.status, r.toAddress.toLowerCase()])).toEqual([["native_sweep", "confirmed", wallet.toLowerCase()]]);
  expect(await statusOf(deposit.id)).toMatchObject({ status: "cancelled", amountReceived: "0" });

  // More sent after it ended: forwarded when asked (`transfers sweep-native`), once however often asked.
  await sendEth(deposit.depositAddress, 7n);
  await chain.mine(4);
  const deps = { config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl };
  const [a, b] = await Promise.all([sweepNativeCoin(deps, deposit.id).catch((e: Error) => e.message), sweepNativeCoin(deps, deposit.id).catch((e: Error) => e.message)]);
  expect([a, b].filter((r) => typeof r === "object" && r?.status === "confirmed")).toHaveLength(1);
  expect((await eth(wallet)) - before).toBe(parseEther("0.5") + 7n);
  expect(await eth(deposit.depositAddress)).toBe(0n);
}, 90_000);

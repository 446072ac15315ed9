import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { erc20Abi, getAddress, keccak256, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { anvilAccounts } from "../../chains/anvil.ts";
import { operatorWallet } from "../../chains/operator.ts";
import { SWEEP_GAS, encodeDeployAndSweep } from "../../chains/settlement/index.ts";
import { createLogger } from "../../config/logger.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { findPayment } from "../../db/payments.ts";
import { insertTransferOut, transfersOutOf, updateTransferOut } from "../../db/transfersOut.ts";
import { refund } from "../../jobs/refund.ts";
import { sweep } from "../../jobs/sweep.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../helpers/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../helpers/testApi.ts";

/**
 * Deposit-address payments end to end: a real wallet sends plain token transfers to
 * the payment's counterfactual address on anvil, the real indexer credits them, and
 * the operator sweeps the merchant's share and refunds what is owed back — each
 * exactly once, checked on chain.
 */
let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let usdc: Address;
const refundAddress = privateKeyToAccount(anvilAccounts[5] as Hex).address;
const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 2 });
  usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant();
  const network = api.config.networks.find((n) => n.shortName === "anvil")!;
  await setSettlementWallet(api.db, merchant.id, network.id, merchantWallet);
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  // The transfers worker is left out: these tests drive sweep and refund jobs themselves.
  workers = await startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl, transfers: false });
}, 120_000);

afterAll(async () => {
  const bounded = (p: Promise<unknown> | undefined) => Promise.race([p, Bun.sleep(15_000)]);
  await bounded(workers?.close());
  await bounded(indexer?.stop());
  await bounded(api?.close());
  await bounded(chain?.stop());
});

const headers = () => ({ "x-public-key": merchant.publicKey });
const transferDeps = () => ({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
const job = <T,>(data: T) => ({ data, id: "test" }) as never;
const balanceOf = (owner: Address) => chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [owner] });

let orders = 0;
async function createDeposit(amount: string) {
  // A distinct orderId each time: identical bodies are, by design, the same payment.
  const body = { amount, currency: "USDC", network: "anvil", expiresIn: 60, orderId: `deposit-${++orders}` };
  const response = await api.request("/api/v1/deposits/create", { headers: headers(), body });
  expect(response.status).toBe(201);
  return response.body.payment as { id: string; depositAddress: Address; paymentUri: string; expiresAt: string; amount: string };
}

async function send(to: Address, units: bigint) {
  const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [to, units], account: customer, chain: null });
  await chain.publicClient.waitForTransactionReceipt({ hash });
}

async function depositStatus(id: string) {
  const response = await api.request(`/api/v1/deposits/status/${id}`, { headers: headers() });
  expect(response.status).toBe(200);
  return response.body.payment;
}

async function waitFor(id: string, predicate: (p: any) => boolean, timeoutMs = 20_000) {
  const until = Date.now() + timeoutMs;
  let last = await depositStatus(id);
  while (!predicate(last)) {
    if (Date.now() > until) throw new Error(`deposit ${id} stuck at ${JSON.stringify(last)}`);
    await Bun.sleep(50);
    last = await depositStatus(id);
  }
  return last;
}

describe("deposit-address payments", () => {
  test("creation: a fixed fifteen-minute window (expiresIn ignored), an EIP-681 URI to the deposit address", async () => {
    const before = Date.now();
    const deposit = await createDeposit("10");
    const expires = new Date(deposit.expiresAt).getTime();
    expect(expires - before).toBeGreaterThanOrEqual(15 * 60 * 1000 - 2_000);
    expect(expires - before).toBeLessThanOrEqual(15 * 60 * 1000 + 2_000);
    expect(deposit.paymentUri).toBe(`ethereum:${usdc}@31337/transfer?address=${deposit.depositAddress}&uint256=10000000`);
    expect(await chain.publicClient.getCode({ address: deposit.depositAddress })).toBeUndefined();
    const status = await depositStatus(deposit.id);
    expect(status).toMatchObject({ amount: "10", amountReceived: "0", amountRemaining: "10", excessOwed: "0", depositAddress: deposit.depositAddress, depositMethod: "deposit_address" });
  });

  test("exact payment: credited, completed, swept once to the merchant (checked on chain)", async () => {
    const deposit = await createDeposit("10");
    const merchantBefore = await balanceOf(merchantWallet);
    await send(deposit.depositAddress, 10_000_000n);

    // The balance endpoint reads the chain.
    const balance = await api.request(`/api/v1/deposits/balance/${deposit.id}`, { headers: headers() });
    expect(balance.body).toMatchObject({ success: true, balance: "10", balanceRaw: "10000000", decimals: 6, token: "USDC", expectedAmount: "10", isComplete: true, requiredConfirmations: 2 });

    await chain.mine(1);
    await waitFor(deposit.id, (p) => p.status === "completed");
    const result = await sweep(transferDeps())(job({ paymentId: deposit.id }));
    expect(result).toMatchObject({ swept: "10000000", status: "confirmed" });
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 10_000_000n);
    expect(await balanceOf(deposit.depositAddress)).toBe(0n);

    // A second run finds nothing owed.
    expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toEqual({ swept: "0" });
    const status = await depositStatus(deposit.id);
    expect(status.sweeps).toHaveLength(1);
    expect(status.sweeps[0]).toMatchObject({ status: "confirmed", amount: "10", to: merchantWallet });
  }, 60_000);

  test("two partial transfers: pending with the remainder, then complete", async () => {
    const deposit = await createDeposit("10");
    await send(deposit.depositAddress, 4_000_000n);
    const partial = await waitFor(deposit.id, (p) => p.amountReceived === "4");
    expect(partial).toMatchObject({ status: "pending", amountRemaining: "6", excessOwed: "0" });
    await send(deposit.depositAddress, 6_000_000n);
    await chain.mine(1);
    expect(await waitFor(deposit.id, (p) => p.status === "completed")).toMatchObject({ amountReceived: "10", amountRemaining: "0", excessOwed: "0" });
  }, 60_000);

  test("overpayment: the merchant gets the amount, the excess is refunded once", async () => {
    const deposit = await createDeposit("10");
    await send(deposit.depositAddress, 12_500_000n);
    await chain.mine(1);
    const completed = await waitFor(deposit.id, (p) => p.status === "completed");
    expect(completed).toMatchObject({ amountReceived: "12.5", excessOwed: "2.5" });

    const request = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: headers(), body: { address: refundAddress, reason: "overpaid" } });
    expect(request.status).toBe(202);
    expect(request.body.refund).toMatchObject({ status: "requested", amount: "2.5", to: refundAddress });
    // A second request while one is pending is refused.
    const again = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: headers(), body: { address: refundAddress } });
    expect(again.status).toBe(409);

    const before = await balanceOf(refundAddress);
    expect(await refund(transferDeps())(job({ transferId: request.body.refund.id }))).toMatchObject({ status: "confirmed" });
    expect(await refund(transferDeps())(job({ transferId: request.body.refund.id }))).toMatchObject({ status: "confirmed" });
    expect(await balanceOf(refundAddress)).toBe(before + 2_500_000n);

    await sweep(transferDeps())(job({ paymentId: deposit.id }));
    expect(await balanceOf(deposit.depositAddress)).toBe(0n);
    const status = await depositStatus(deposit.id);
    expect(status).toMatchObject({ excessOwed: "0", refunded: "2.5" });
    expect(status.refunds[0]).toMatchObject({ status: "confirmed", amount: "2.5", reason: "overpaid" });
    expect(status.refunds[0].transactionHash).toMatch(/^0x[0-9a-f]{64}$/);

    // The outbox recorded each movement once.
    const feed = await api.request("/api/v1/events?limit=100", { headers: { "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret } });
    expect(feed.status).toBe(200);
    const types = feed.body.events.filter((e: { paymentId: string }) => e.paymentId === deposit.id).map((e: { type: string }) => e.type);
    expect(types.filter((t: string) => t === "payment.refunded")).toHaveLength(1);
    expect(types.filter((t: string) => t === "payment.forwarded")).toHaveLength(1);
    expect(types).toContain("payment.overpaid");

    // Nothing left to refund now.
    const nothing = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: headers(), body: { address: refundAddress } });
    expect(nothing.status).toBe(409);
  }, 60_000);

  test("refund requests are validated: bad address 400, nothing owed 409, unknown payment 404", async () => {
    const deposit = await createDeposit("10");
    expect((await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: headers(), body: { address: "0x123" } })).status).toBe(400);
    expect((await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: headers(), body: { address: refundAddress } })).status).toBe(409);
    expect(
      (await api.request(`/api/v1/deposits/refund-request/00000000-0000-4000-8000-000000000000`, { headers: headers(), body: { address: refundAddress } })).status,
    ).toBe(404);
  });

  test("a sweep job run twice concurrently sends one transfer", async () => {
    const deposit = await createDeposit("5");
    await send(deposit.depositAddress, 5_000_000n);
    await chain.mine(1);
    await waitFor(deposit.id, (p) => p.status === "completed");
    const merchantBefore = await balanceOf(merchantWallet);
    const results = await Promise.all([sweep(transferDeps())(job({ paymentId: deposit.id })), sweep(transferDeps())(job({ paymentId: deposit.id }))]);
    expect(results.map((r) => r.swept).sort()).toEqual(["0", "5000000"]);
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 5_000_000n);
    const rows = await transfersOutOf(api.db, deposit.id);
    expect(rows.map((r) => [r.kind, r.status])).toEqual([["sweep", "confirmed"]]);
  }, 60_000);

  test("a worker killed after recording a sweep but before sending it: the restart sends that very transaction once", async () => {
    const deposit = await createDeposit("3");
    await send(deposit.depositAddress, 3_000_000n);
    await chain.mine(1);
    await waitFor(deposit.id, (p) => p.status === "completed");
    const payment = (await findPayment(api.db, deposit.id))!;

    // What a worker had done when it died: the row recorded as broadcast with its signed bytes, never sent.
    const network = api.config.networks.find((n) => n.shortName === "anvil")!;
    const wallet = operatorWallet(api.config, network);
    const account = privateKeyToAccount(operatorKey);
    const request = await wallet.prepareTransactionRequest({
      account,
      chain: wallet.chain,
      to: chain.factory,
      gas: SWEEP_GAS,
      data: encodeDeployAndSweep({ paymentId: payment.id, merchantWallet: getAddress(payment.merchantWallet), token: usdc, to: merchantWallet, amount: 3_000_000n }),
    });
    const raw = await wallet.signTransaction({ ...request, account, chain: wallet.chain } as never);
    const row = (await insertTransferOut(api.db, { paymentId: payment.id, kind: "sweep", chainId: "31337", tokenAddress: usdc, toAddress: merchantWallet, amount: 3_000_000n }))!;
    await updateTransferOut(api.db, row.id, { status: "broadcast", nonce: Number(request.nonce), rawTx: raw, txHash: keccak256(raw) });

    const merchantBefore = await balanceOf(merchantWallet);
    const first = await sweep(transferDeps())(job({ paymentId: deposit.id }));
    const second = await sweep(transferDeps())(job({ paymentId: deposit.id }));
    expect([first.swept, second.swept]).toEqual(["0", "0"]); // it resumed the recorded one; nothing new was owed
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 3_000_000n);
    expect(await balanceOf(deposit.depositAddress)).toBe(0n);
    const rows = await transfersOutOf(api.db, deposit.id);
    expect(rows.map((r) => [r.status, r.txHash])).toEqual([["confirmed", keccak256(raw)]]);
  }, 60_000);

  test("a worker killed after sending, before recording the receipt: the restart only records it", async () => {
    const deposit = await createDeposit("2");
    await send(deposit.depositAddress, 2_000_000n);
    await chain.mine(1);
    await waitFor(deposit.id, (p) => p.status === "completed");
    const merchantBefore = await balanceOf(merchantWallet);
    // Run the whole sweep, then forget its outcome as a crash would.
    await sweep(transferDeps())(job({ paymentId: deposit.id }));
    const [row] = await transfersOutOf(api.db, deposit.id);
    await updateTransferOut(api.db, row!.id, { status: "broadcast", blockNumber: null });
    expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toEqual({ swept: "0" });
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 2_000_000n);
    expect((await transfersOutOf(api.db, deposit.id)).map((r) => r.status)).toEqual(["confirmed"]);
  }, 60_000);

  test("with the operator unable to pay gas, the sweep waits (health says so) and goes out once funded", async () => {
    const deposit = await createDeposit("1");
    await send(deposit.depositAddress, 1_000_000n);
    await chain.mine(1);
    await waitFor(deposit.id, (p) => p.status === "completed");
    const operator = privateKeyToAccount(operatorKey).address;
    const funded = await chain.publicClient.getBalance({ address: operator });
    await chain.rpc("anvil_setBalance", [operator, "0x1"]);

    await expect(sweep(transferDeps())(job({ paymentId: deposit.id }))).rejects.toThrow(/below the .* wei a sweep needs/);
    const [waiting] = await transfersOutOf(api.db, deposit.id);
    expect(waiting).toMatchObject({ status: "requested", txHash: null });
    const health = await api.request("/api/v1/payments/health");
    expect(health.body.status).toBe("degraded");
    expect(health.body.chains[0].operator).toMatchObject({ address: operator, balance: "1", sufficient: false });

    await chain.rpc("anvil_setBalance", [operator, `0x${funded.toString(16)}`]);
    const merchantBefore = await balanceOf(merchantWallet);
    expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toEqual({ swept: "0" }); // resumed the waiting row
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 1_000_000n);
    expect((await transfersOutOf(api.db, deposit.id)).map((r) => r.status)).toEqual(["confirmed"]);
  }, 60_000);

  // Last: it moves the chain's clock past every open deposit's expiry.
  test("money after expiry is late: expired, owed back in full, refunded once", async () => {
    const deposit = await createDeposit("10");
    await send(deposit.depositAddress, 4_000_000n);
    await waitFor(deposit.id, (p) => p.amountReceived === "4");
    await chain.rpc("evm_increaseTime", [16 * 60]);
    await send(deposit.depositAddress, 6_000_000n);
    const expired = await waitFor(deposit.id, (p) => p.status === "expired");
    expect(expired).toMatchObject({ amountReceived: "10", excessOwed: "10", lateAmount: "6", amountRemaining: "0" });

    const request = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: headers(), body: { address: refundAddress } });
    expect(request.status).toBe(202);
    const before = await balanceOf(refundAddress);
    await refund(transferDeps())(job({ transferId: request.body.refund.id }));
    expect(await balanceOf(refundAddress)).toBe(before + 10_000_000n);
    expect(await balanceOf(deposit.depositAddress)).toBe(0n);
    // Nothing is swept to the merchant for an expired payment.
    expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toEqual({ swept: "0" });
    expect(await depositStatus(deposit.id)).toMatchObject({ status: "expired", excessOwed: "0", refunded: "10" });
  }, 60_000);
});

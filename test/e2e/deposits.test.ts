import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { chainSchema } from "../../config/indexer.ts";
import { erc20Abi, getAddress, keccak256, parseTransaction, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { anvilAccounts } from "@stablepay/devchain/evm";
import { forwarderFactoryAbi } from "../../contracts/artifacts/index.ts";
import { evmChain } from "../../rails/evm/index.ts";
import { operatorWallet } from "../../rails/evm/operator.ts";
import { SWEEP_GAS, deployForwarderFactory, encodeDeployAndSweep } from "../../rails/evm/settlement/index.ts";
import { createLogger } from "../../config/logger.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { findPayment } from "../../db/payments.ts";
import { confirmedTransfersAbove, paymentsToSweep, insertTransferOut, replaceTransferOutTx, transfersOutOf, updateTransferOut, type TransferOutRow } from "../../db/transfersOut.ts";
import { confirmTransferOut, failTransferOut, transferLedger } from "../../payouts/index.ts";
import { refund } from "../../jobs/refund.ts";
import { watchIngest } from "../../reconcile/index.ts";
import { sweep } from "../../jobs/sweep.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { commands, UsageError } from "../../scripts/cli/commands.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { startRpcProxy } from "../../harness/rpcProxy.ts";
import { rewritingRpcProxy, type RpcCall } from "../../harness/rewritingRpcProxy.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

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
// Refunds to an address other than the one that paid are the merchant's to send (key + secret).
const merchantKeys = () => ({ "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret });
const transferDeps = () => ({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl, ledger: transferLedger });
const job = <T,>(data: T) => ({ data, id: "test" }) as never;
const balanceOf = (owner: Address) => chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [owner] });
/** Whether the node has the transaction (in its pool or mined). */
const inPool = (hash: string | null) => (hash ? chain.publicClient.getTransaction({ hash: hash as Hex }).then(() => true, () => false) : Promise.resolve(false));

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

/** A deposit paid in full and completed (the network's confirmations mined). */
async function completedDeposit(amount: string, units: bigint) {
  const deposit = await createDeposit(amount);
  await send(deposit.depositAddress, units);
  await chain.mine(1);
  await waitFor(deposit.id, (p) => p.status === "completed");
  return deposit;
}

/**
 * What a worker that died after recording a sweep, before sending it, leaves behind: a
 * completed deposit of `amount` and its sweep row as `broadcast` with the signed bytes
 * (at the chain's fees, or at `fees`), never sent.
 */
async function completedWithUnsentSweep(amount: string, units: bigint, fees?: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }) {
  const deposit = await completedDeposit(amount, units);
  const payment = (await findPayment(api.db, deposit.id))!;
  const wallet = operatorWallet(api.config, api.config.networks.find((n) => n.shortName === "anvil")!);
  const account = privateKeyToAccount(operatorKey);
  const request = await wallet.prepareTransactionRequest({
    account,
    chain: wallet.chain,
    to: chain.factory,
    gas: SWEEP_GAS,
    data: encodeDeployAndSweep({ paymentId: payment.id, merchantWallet: getAddress(payment.merchantWallet), token: usdc, to: merchantWallet, amount: units }),
    ...(fees ? { type: "eip1559" as const, ...fees } : {}),
  });
  const raw = await wallet.signTransaction({ ...request, account, chain: wallet.chain } as never);
  const row = (await insertTransferOut(api.db, { paymentId: payment.id, kind: "sweep", chainId: "31337", tokenAddress: usdc, toAddress: merchantWallet, amount: units }))!;
  const nonce = Number(request.nonce);
  await updateTransferOut(api.db, row.id, { status: "broadcast", nonce, fromAddress: account.address, rawTx: raw, txHash: keccak256(raw) });
  return { deposit, row, nonce, hash: keccak256(raw), wallet, account };
}

/**
 * The chain behind a proxy that holds back the answer to the first call `holds` picks
 * until `release()`: a run of the rail stopped at that exact point while the test acts.
 * `deps` are the transfer deps with the anvil network read through the proxy.
 */
function heldRpc(holds: (call: RpcCall) => boolean) {
  let reached!: () => void;
  const atHold = new Promise<void>((resolve) => (reached = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  const proxy = rewritingRpcProxy(chain.anvil.rpcUrl, async (call, answer) => {
    if (!held && holds(call)) {
      held = true;
      reached();
      await gate;
    }
    return answer;
  });
  const config = { ...api.config, networks: api.config.networks.map((n) => (n.shortName === "anvil" ? { ...n, rpcUrl: proxy.url } : n)) };
  return { atHold, release, deps: { ...transferDeps(), config }, stop: () => (release(), proxy.stop()) };
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

    const request = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: merchantKeys(), body: { address: refundAddress, reason: "overpaid" } });
    expect(request.status).toBe(202);
    expect(request.body.refund).toMatchObject({ status: "requested", amount: "2.5", to: refundAddress });
    // A second request while one is pending is refused.
    const again = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: merchantKeys(), body: { address: refundAddress } });
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
    const nothing = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: merchantKeys(), body: { address: refundAddress } });
    expect(nothing.status).toBe(409);
  }, 60_000);

  // BUG: a contract payment paid by a plain transfer to its deposit address (the QR code, or the
  // page's button near the intent's deadline) was swept whole to the merchant: the fee its intent
  // named never reached its recipient, while splitter-status said it had.
  test("a payment carrying a service fee, paid by transfer: the merchant's share, then the fee to its recipient, each once", async () => {
    const feeRecipient = privateKeyToAccount(anvilAccounts[8] as Hex).address;
    const deposit = await completedDeposit("10", 10_000_000n);
    await api.db.execute(sql`update payments set fee_amount = 100000, fee_recipient = ${feeRecipient} where id = ${deposit.id}`);
    const [merchantBefore, feeBefore] = [await balanceOf(merchantWallet), await balanceOf(feeRecipient)];
    expect((await findPayment(api.db, deposit.id))!.sweptAt).toBeNull();
    expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toMatchObject({ swept: "10000000", status: "confirmed" });
    expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toEqual({ swept: "0" });
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 9_900_000n);
    expect(await balanceOf(feeRecipient)).toBe(feeBefore + 100_000n);
    expect(await balanceOf(deposit.depositAddress)).toBe(0n);
    const rows = await transfersOutOf(api.db, deposit.id);
    expect(rows.map((r) => [r.kind, r.status, r.toAddress.toLowerCase(), r.amount])).toEqual([
      ["sweep", "confirmed", merchantWallet.toLowerCase(), 9_900_000n],
      ["sweep", "confirmed", feeRecipient.toLowerCase(), 100_000n],
    ]);
    expect((await findPayment(api.db, deposit.id))!.sweptAt).toBeInstanceOf(Date);
  }, 60_000);

  // BUG: a sweep or refund reported as `payment.forwarded` / `payment.refunded` that a reorg then
  // undid (reverted when mined again) was closed as failed without a word to the merchant.
  test("a reported sweep a reorg undid: payment.forward_reverted with the same transfer; one never reported says nothing", async () => {
    const deposit = await completedDeposit("1", 1_000_000n);
    expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toMatchObject({ status: "confirmed" });
    const [row] = await transfersOutOf(api.db, deposit.id);
    // Swept whole: the recheck's "sweeps owed" no longer reads it; owed again once the reorg undoes it.
    expect((await findPayment(api.db, deposit.id))!.sweptAt).toBeInstanceOf(Date);
    expect(await paymentsToSweep(api.db)).not.toContain(deposit.id);
    await failTransferOut(api.db, row!.id, "confirmed", { error: "transaction reverted after a reorg" });
    expect((await findPayment(api.db, deposit.id))!.sweptAt).toBeNull();
    expect(await paymentsToSweep(api.db)).toContain(deposit.id);
    const feed = await api.request(`/api/v1/events?paymentId=${deposit.id}&limit=100`, { headers: { "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret } });
    const events = feed.body.events as Array<{ type: string; data: { transfer?: Record<string, unknown> } }>;
    const forwarded = events.find((e) => e.type === "payment.forwarded")!;
    const undone = events.filter((e) => e.type === "payment.forward_reverted");
    expect(undone).toHaveLength(1);
    expect(undone[0]!.data.transfer).toEqual({ ...forwarded.data.transfer, reason: "transaction reverted after a reorg" });
    expect(events.map((e) => e.type).indexOf("payment.forward_reverted")).toBeGreaterThan(events.map((e) => e.type).indexOf("payment.forwarded"));

    const quiet = await completedDeposit("1", 1_000_000n);
    const reserved = (await insertTransferOut(api.db, { paymentId: quiet.id, kind: "sweep", chainId: "31337", tokenAddress: usdc, toAddress: merchantWallet, amount: 1_000_000n }))!;
    await failTransferOut(api.db, reserved.id, "requested", { error: "test" });
    const quietFeed = await api.request(`/api/v1/events?paymentId=${quiet.id}&limit=100`, { headers: { "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret } });
    expect(quietFeed.body.events.map((e: { type: string }) => e.type)).not.toContain("payment.forward_reverted");
    await sweep(transferDeps())(job({ paymentId: quiet.id }));
  }, 60_000);

  // BUG: anyone holding a payment id may ask for its refund, and any amount was sent: a few
  // units overpaid to many deposit addresses cost the operator a transaction (on EVM a
  // forwarder deployment too) per request.
  test("an excess under REFUND_MIN_AMOUNT (0.50 by default) is not refunded: 409 refund_below_minimum, nothing recorded", async () => {
    expect(api.config.refunds.minimum).toBe("0.5");
    const deposit = await createDeposit("10");
    await send(deposit.depositAddress, 10_400_000n);
    await chain.mine(1);
    expect(await waitFor(deposit.id, (p) => p.status === "completed")).toMatchObject({ excessOwed: "0.4" });
    const refused = await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: { address: refundAddress } });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe("refund_below_minimum");
    expect(refused.body.message).toContain("0.4 USDC, less than the 0.5 USDC");
    expect((await depositStatus(deposit.id)).refunds).toHaveLength(0);
    // The merchant's sweep still takes its 10; the 0.4 stays owed (the merchant can return it).
    await sweep(transferDeps())(job({ paymentId: deposit.id }));
    expect(await balanceOf(deposit.depositAddress)).toBe(400_000n);
  }, 60_000);

  test("refund requests are validated: bad address 400, nothing owed 409, unknown payment 404", async () => {
    const deposit = await createDeposit("10");
    expect((await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: headers(), body: { address: "0x123" } })).status).toBe(400);
    expect((await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: headers(), body: { address: refundAddress } })).status).toBe(409);
    expect(
      (await api.request(`/api/v1/deposits/refund-request/00000000-0000-4000-8000-000000000000`, { headers: headers(), body: { address: refundAddress } })).status,
    ).toBe(404);
  });

  // BUG: the zero address, the token's own contract or the service's contracts were taken as
  // refund addresses (tokens burnt, or a revert), and a refund that reverted could be asked
  // for again without end through the public checkout route, burning the operator's gas.
  test("refunds never go where tokens cannot come back, and a payment whose refunds keep reverting refuses more", async () => {
    const deposit = await createDeposit("1");
    await send(deposit.depositAddress, 1_500_000n);
    await waitFor(deposit.id, (p) => p.excessOwed === "0.5");
    const network = api.config.networks.find((n) => n.shortName === "anvil")!;
    for (const address of ["0x0000000000000000000000000000000000000000", usdc.toLowerCase(), network.forwarderFactory!, network.settlementContract!]) {
      const refused = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: headers(), body: { address } });
      expect([address, refused.status, refused.body.error]).toEqual([address, 400, "invalid_request"]);
      expect(refused.body.message).toContain("'address'");
    }
    // Three refunds of it reverted on chain today (failed rows with a block).
    for (let i = 0; i < 3; i++) {
      const row = (await insertTransferOut(api.db, { paymentId: deposit.id, kind: "refund", chainId: "31337", tokenAddress: usdc, toAddress: refundAddress, amount: 500_000n }))!;
      await updateTransferOut(api.db, row.id, { status: "failed", blockNumber: 1n, error: "transaction reverted" });
    }
    const reverting = await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: { address: refundAddress } });
    expect([reverting.status, reverting.body.error]).toEqual([409, "refund_reverting"]);
    expect((await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: headers(), body: { address: refundAddress } })).status).toBe(409);
  });

  test("a sweep job run twice concurrently sends one transfer", async () => {
    const deposit = await completedDeposit("5", 5_000_000n);
    const merchantBefore = await balanceOf(merchantWallet);
    const results = await Promise.all([sweep(transferDeps())(job({ paymentId: deposit.id })), sweep(transferDeps())(job({ paymentId: deposit.id }))]);
    expect(results.map((r) => r.swept).sort()).toEqual(["0", "5000000"]);
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 5_000_000n);
    const rows = await transfersOutOf(api.db, deposit.id);
    expect(rows.map((r) => [r.kind, r.status])).toEqual([["sweep", "confirmed"]]);
  }, 60_000);

  test("a worker killed after recording a sweep but before sending it: the restart sends that very transaction once", async () => {
    const { deposit, hash } = await completedWithUnsentSweep("3", 3_000_000n);

    const merchantBefore = await balanceOf(merchantWallet);
    const first = await sweep(transferDeps())(job({ paymentId: deposit.id }));
    const second = await sweep(transferDeps())(job({ paymentId: deposit.id }));
    expect([first.swept, second.swept]).toEqual(["0", "0"]); // it resumed the recorded one; nothing new was owed
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 3_000_000n);
    expect(await balanceOf(deposit.depositAddress)).toBe(0n);
    const rows = await transfersOutOf(api.db, deposit.id);
    expect(rows.map((r) => [r.status, r.txHash])).toEqual([["confirmed", hash]]);
  }, 60_000);

  test("a recorded sweep whose nonce another operator transaction took: failed with nothing moved, then swept once", async () => {
    // A sweep signed and recorded with nonce N but never sent; then the operator key sends
    // something else with N (another tool sharing the key), so the sweep can never be mined.
    const { deposit, nonce, wallet, account } = await completedWithUnsentSweep("2", 2_000_000n);
    const other = await wallet.sendTransaction({ account, chain: wallet.chain, to: account.address, value: 0n, nonce });
    await chain.publicClient.waitForTransactionReceipt({ hash: other });

    const merchantBefore = await balanceOf(merchantWallet);
    // Fresh, "not ours" waits (a node behind may not have the receipt yet); once the row has waited, it is believed.
    await expect(sweep(transferDeps())(job({ paymentId: deposit.id }))).rejects.toThrow("no receipt of it was found yet");
    const waited = { ...transferDeps(), config: { ...api.config, transfers: { replaceAfterMs: 1 } } };
    const result = await sweep(waited)(job({ paymentId: deposit.id }));
    expect(result).toMatchObject({ swept: "2000000", status: "confirmed" });
    const rows = await transfersOutOf(api.db, deposit.id);
    expect(rows.map((r) => [r.status, r.error])).toEqual([
      ["failed", "nonce used by another transaction; not mined"],
      ["confirmed", null],
    ]);
    expect(rows[1]!.nonce).toBe(nonce + 1);
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 2_000_000n);
    expect(await balanceOf(deposit.depositAddress)).toBe(0n);
    expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toEqual({ swept: "0" });
  }, 60_000);

  // BUG: behind one RPC URL, a node that counted the nonce used and another, behind, that had no
  // receipt yet closed a mined sweep as failed: no payment.forwarded, the sweep owed again (a refund offered again).
  test("a mined sweep whose receipt a lagging node does not have yet: not failed; recorded once the receipt is seen", async () => {
    const { deposit } = await completedWithUnsentSweep("2", 2_000_000n);
    const stored = (await transfersOutOf(api.db, deposit.id))[0]!;
    await chain.publicClient.request({ method: "eth_sendRawTransaction", params: [stored.rawTx as Hex] });
    await chain.mine(1);
    const lagging = rewritingRpcProxy(chain.anvil.rpcUrl, (call, answer) =>
      call.method === "eth_getTransactionReceipt" || call.method === "eth_getTransactionByHash" ? { ...answer, result: null } : answer,
    );
    try {
      const config = { ...api.config, networks: api.config.networks.map((n) => (n.shortName === "anvil" ? { ...n, rpcUrl: lagging.url } : n)) };
      await expect(evmChain.executeTransferOut({ ...transferDeps(), config }, stored.id)).rejects.toThrow("no receipt of it was found yet");
      expect((await transfersOutOf(api.db, deposit.id)).map((r) => r.status)).toEqual(["broadcast"]);
    } finally {
      lagging.stop();
    }
    expect((await evmChain.executeTransferOut(transferDeps(), stored.id)).status).toBe("confirmed");
  }, 60_000);

  test("a worker killed after sending, before recording the receipt: the restart only records it", async () => {
    const deposit = await completedDeposit("2", 2_000_000n);
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
    const deposit = await completedDeposit("1", 1_000_000n);
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

  // BUG: gas money was judged at today's gas price, but the sweep is signed at its fee cap (above
  // it): a balance in between passed, the node refused the recorded transaction, and its nonce held
  // back every later sweep on the chain while health said the operator had enough.
  test("an operator who can pay today's gas price but not the fee cap a sweep is signed with: nothing signed, health says so", async () => {
    const deposit = await completedDeposit("1", 1_000_000n);
    const operator = privateKeyToAccount(operatorKey).address;
    const funded = await chain.publicClient.getBalance({ address: operator });
    // A base fee well above zero, so the cap (1.2 × base fee + tip) is clearly above the price (base fee + tip).
    await chain.rpc("anvil_setNextBlockBaseFeePerGas", ["0x2540be400"]); // 10 gwei
    await chain.mine(1);
    const between = SWEEP_GAS * (await chain.publicClient.getGasPrice()) + 1n;
    try {
      await chain.rpc("anvil_setBalance", [operator, `0x${between.toString(16)}`]);
      await expect(sweep(transferDeps())(job({ paymentId: deposit.id }))).rejects.toThrow(/below the .* wei a sweep needs/);
      expect(await transfersOutOf(api.db, deposit.id)).toMatchObject([{ status: "requested", txHash: null, nonce: null }]);
      const health = await api.request("/api/v1/payments/health");
      expect(health.body.chains[0].operator).toMatchObject({ address: operator, sufficient: false });
    } finally {
      await chain.rpc("anvil_setBalance", [operator, `0x${funded.toString(16)}`]);
    }
    expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toEqual({ swept: "0" }); // resumed the waiting row
    expect((await transfersOutOf(api.db, deposit.id)).map((r) => r.status)).toEqual(["confirmed"]);
  }, 60_000);

  // BUG: every sweep was signed with a fixed 250k gas limit: a first sweep uses ~236k here, and a
  // chain that charges its L1 data inside the limit (Arbitrum) needs far more: out of gas, or refused.
  test("a sweep's gas limit is the node's estimate plus 30%, never below the fixed floor", async () => {
    const deposit = await completedDeposit("1", 1_000_000n);
    const estimates: bigint[] = [];
    const proxy = rewritingRpcProxy(chain.anvil.rpcUrl, (call, answer) => {
      if (call.method !== "eth_estimateGas") return answer;
      estimates.push(BigInt(answer.result as string));
      return { ...answer, result: "0x61a80" }; // 400,000: what an Arbitrum node answers with its L1 part
    });
    try {
      const config = { ...api.config, networks: api.config.networks.map((n) => (n.shortName === "anvil" ? { ...n, rpcUrl: proxy.url } : n)) };
      await sweep({ ...transferDeps(), config })(job({ paymentId: deposit.id }));
      const [row] = await transfersOutOf(api.db, deposit.id);
      expect(parseTransaction(row!.rawTx as Hex).gas).toBe(520_000n);
      expect(row!.status).toBe("confirmed");
      // The real estimate of a first sweep (it deploys the forwarder) leaves a fixed 250k little room.
      expect(estimates[0]!).toBeGreaterThan(200_000n);
    } finally {
      proxy.stop();
    }
  }, 60_000);

  test("sweeps on one chain do not wait for each other's receipts: three go out in one block, consecutive nonces", async () => {
    const deposits = [];
    for (let i = 0; i < 3; i++) {
      const deposit = await createDeposit("1");
      await send(deposit.depositAddress, 1_000_000n);
      deposits.push(deposit);
    }
    await chain.mine(1);
    for (const d of deposits) await waitFor(d.id, (p) => p.status === "completed");
    const merchantBefore = await balanceOf(merchantWallet);

    // Nothing is mined until all three are on their way: were sweeps serialized until
    // each one's receipt, the second could never be signed.
    await chain.rpc("evm_setAutomine", [false]);
    try {
      const running = deposits.map((d) => sweep(transferDeps())(job({ paymentId: d.id })));
      const deadline = Date.now() + 20_000;
      for (;;) {
        const rows = (await Promise.all(deposits.map((d) => transfersOutOf(api.db, d.id)))).flat();
        // Recorded as broadcast comes just before the send: wait until the node holds all three.
        if (rows.length === 3 && rows.every((r) => r.status === "broadcast") && (await Promise.all(rows.map((r) => inPool(r.txHash)))).every(Boolean)) break;
        if (Date.now() > deadline) throw new Error(`sweeps not all broadcast: ${JSON.stringify(rows.map((r) => r.status))}`);
        await Bun.sleep(50);
      }
      await chain.rpc("evm_mine");
      expect((await Promise.all(running)).map((r) => r.status)).toEqual(["confirmed", "confirmed", "confirmed"]);
    } finally {
      await chain.rpc("evm_setAutomine", [true]);
    }
    const rows = (await Promise.all(deposits.map((d) => transfersOutOf(api.db, d.id)))).flat();
    expect(new Set(rows.map((r) => r.blockNumber)).size).toBe(1);
    const nonces = rows.map((r) => r.nonce!).sort((a, b) => a - b);
    expect(nonces).toEqual([nonces[0]!, nonces[0]! + 1, nonces[0]! + 2]);
    expect(rows.every((r) => r.fromAddress === privateKeyToAccount(operatorKey).address)).toBe(true);
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 3_000_000n);
    for (const d of deposits) expect(await balanceOf(d.depositAddress)).toBe(0n);
  }, 60_000);

  test("a sweep left unmined (its fee under the base fee) is replaced at higher fees with the same nonce, and mined once", async () => {
    const deposit = await completedDeposit("1", 1_000_000n);
    const deps = { ...transferDeps(), config: { ...api.config, transfers: { replaceAfterMs: 1_500 } } };
    const merchantBefore = await balanceOf(merchantWallet);
    const rowWhen = async (check: (row: TransferOutRow) => boolean) => {
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; await Bun.sleep(20)) {
        const [row] = await transfersOutOf(api.db, deposit.id);
        if (row && check(row)) return row;
      }
      throw new Error("the sweep row never got there");
    };

    await chain.rpc("evm_setAutomine", [false]);
    try {
      const first = sweep(deps)(job({ paymentId: deposit.id }));
      const sent = await rowWhen((r) => r.status === "broadcast");
      // The row is recorded just before the send: the base fee must not rise before the node holds it.
      for (const deadline = Date.now() + 20_000; !(await inPool(sent.txHash)); await Bun.sleep(20)) {
        if (Date.now() > deadline) throw new Error("the sweep never reached the node");
      }
      // The base fee jumps above what the transaction offers: it stays unmined.
      const offered = parseTransaction(sent.rawTx as Hex).maxFeePerGas!;
      await chain.rpc("anvil_setNextBlockBaseFeePerGas", [`0x${(offered * 4n).toString(16)}`]);
      await chain.rpc("evm_mine");
      // Anvil drops it from its pool once the base fee passes its fee: a run already waiting
      // reports it unmined, one that looks after the block finds the node refusing the bytes.
      await expect(first).rejects.toThrow(/not mined yet|the node refused/);
      expect(await chain.publicClient.getTransactionReceipt({ hash: sent.txHash as Hex }).catch(() => null)).toBeNull();

      // The job's retry finds it waiting too long and sends its replacement.
      await Bun.sleep(Math.max(0, sent.updatedAt.getTime() + 1_500 - Date.now()) + 100);
      const second = sweep(deps)(job({ paymentId: deposit.id }));
      const replacing = await rowWhen((r) => r.replacedTxHashes.length > 0);
      for (const deadline = Date.now() + 20_000; !(await inPool(replacing.txHash)); await Bun.sleep(20)) {
        if (Date.now() > deadline) throw new Error("the replacement never reached the node");
      }
      await chain.rpc("evm_mine");
      expect(await second).toEqual({ swept: "0" }); // it finished the open sweep; nothing more was owed

      const [row, ...others] = await transfersOutOf(api.db, deposit.id);
      expect(others).toEqual([]);
      expect(row).toMatchObject({ status: "confirmed", nonce: sent.nonce, replacedTxHashes: [sent.txHash] });
      expect(row!.txHash).not.toBe(sent.txHash);
      const receipt = await chain.publicClient.getTransactionReceipt({ hash: row!.txHash as Hex });
      expect(receipt.blockNumber).toBe(row!.blockNumber!);
      expect(await chain.publicClient.getTransactionReceipt({ hash: sent.txHash as Hex }).catch(() => null)).toBeNull();
    } finally {
      await chain.rpc("evm_setAutomine", [true]);
    }
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 1_000_000n);
    expect(await balanceOf(deposit.depositAddress)).toBe(0n);
  }, 60_000);

  test("recorded bytes the node now refuses (the base fee passed their fee): signed again at today's fees once they are stale, mined once", async () => {
    // What a worker that died after recording had left, while the base fee then rose past its fee.
    const block = await chain.publicClient.getBlock();
    const { deposit, row, nonce, hash } = await completedWithUnsentSweep("1", 1_000_000n, { maxFeePerGas: block.baseFeePerGas! * 2n, maxPriorityFeePerGas: 1n });
    await chain.rpc("anvil_setNextBlockBaseFeePerGas", [`0x${(block.baseFeePerGas! * 20n).toString(16)}`]);
    await chain.rpc("evm_mine");

    const deps = { ...transferDeps(), config: { ...api.config, transfers: { replaceAfterMs: 60_000 } } };
    // Fresh: the refusal is reported and retried later; nothing is replaced yet.
    await expect(sweep(deps)(job({ paymentId: deposit.id }))).rejects.toThrow(/the node refused transaction/);
    expect((await transfersOutOf(api.db, deposit.id)).map((r) => [r.status, r.txHash, r.replacedTxHashes])).toEqual([["broadcast", hash, []]]);

    // Out long enough: the same nonce, signed again at today's fees.
    await api.db.execute(sql`update transfers_out set updated_at = now() - interval '2 minutes' where id = ${row.id}`);
    const merchantBefore = await balanceOf(merchantWallet);
    expect(await sweep(deps)(job({ paymentId: deposit.id }))).toEqual({ swept: "0" });
    const [done, ...others] = await transfersOutOf(api.db, deposit.id);
    expect(others).toEqual([]);
    expect(done).toMatchObject({ status: "confirmed", nonce, replacedTxHashes: [hash] });
    expect(done!.txHash).not.toBe(hash);
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 1_000_000n);
    expect(await balanceOf(deposit.depositAddress)).toBe(0n);
  }, 60_000);

  // BUG: after OPERATOR_PRIVATE_KEY changed, the new key "replaced" a row the old key signed: a
  // separate transaction under the old key's nonce, both minable (the money moved twice).
  test("a stuck transfer the previous operator key signed is not replaced or cancelled by the new key", async () => {
    const block = await chain.publicClient.getBlock();
    const { deposit, row, hash } = await completedWithUnsentSweep("1", 1_000_000n, { maxFeePerGas: block.baseFeePerGas! * 2n, maxPriorityFeePerGas: 1n });
    await chain.rpc("anvil_setNextBlockBaseFeePerGas", [`0x${(block.baseFeePerGas! * 20n).toString(16)}`]);
    await chain.rpc("evm_mine");
    await api.db.execute(sql`update transfers_out set updated_at = now() - interval '2 minutes' where id = ${row.id}`);
    const rotated = { ...transferDeps(), config: { ...api.config, operatorPrivateKey: anvilAccounts[7] as Hex, transfers: { replaceAfterMs: 60_000 } } };
    await expect(evmChain.executeTransferOut(rotated, row.id)).rejects.toThrow(/was signed by .* not by the operator key now configured/);
    await expect(evmChain.cancelTransferOut(rotated, row.id, { waitMs: 1_000 })).rejects.toThrow(/was signed by .* not by the operator key now configured/);
    expect((await transfersOutOf(api.db, deposit.id)).map((r) => [r.status, r.txHash, r.replacedTxHashes])).toEqual([["broadcast", hash, []]]);
    // With the key that signed it, it goes out as before.
    expect((await evmChain.executeTransferOut({ ...transferDeps(), config: { ...api.config, transfers: { replaceAfterMs: 60_000 } } }, row.id)).status).toBe("confirmed");
  }, 60_000);

  // BUG: the configured factory deploying the payment's forwarder elsewhere (FORWARDER_FACTORY
  // changed, or a factory compiled from another forwarder source) was not noticed: each sweep
  // deployed an empty forwarder and reverted, burning the operator's gas, the money stranded.
  test("a sweep through a factory that would not deploy at the payment's deposit address: nothing signed, the row says why", async () => {
    const deposit = await completedDeposit("1", 1_000_000n);
    const operator = privateKeyToAccount(operatorKey).address;
    const other = await deployForwarderFactory({ rpcUrl: chain.anvil.rpcUrl, chainId: 31337, deployerPrivateKey: operatorKey, operator, owner: operator });
    const moved = { ...transferDeps(), config: { ...api.config, networks: api.config.networks.map((n) => (n.shortName === "anvil" ? { ...n, forwarderFactory: other } : n)) } };
    await expect(sweep(moved)(job({ paymentId: deposit.id }))).rejects.toThrow(/deploys this payment's forwarder at .* not at its deposit address/);
    expect(await transfersOutOf(api.db, deposit.id)).toMatchObject([{ status: "requested", txHash: null, nonce: null, error: expect.stringContaining("set FORWARDER_FACTORY") }]);
    expect(await balanceOf(deposit.depositAddress)).toBe(1_000_000n);
    // The factory the address came from sweeps it.
    expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toEqual({ swept: "0" });
    expect(await transfersOutOf(api.db, deposit.id)).toMatchObject([{ status: "confirmed", error: null }]);
  }, 60_000);

  // BUG: a run still holding the row as it read it before another run replaced the
  // transaction looked only for its own hashes once the nonce was used, found none mined
  // (the replacement was) and closed the row `failed`: the money had moved, the books said not.
  test("a run that read the row before another run's replacement was mined confirms the row with the replacement, not failed", async () => {
    const { deposit, row, nonce, hash, account } = await completedWithUnsentSweep("1", 1_000_000n);
    const merchantBefore = await balanceOf(merchantWallet);
    // The run's first receipt lookup (of the hash it read) is answered only when the test says.
    const rpc = heldRpc((call) => call.method === "eth_getTransactionReceipt" && String(call.params?.[0]).toLowerCase() === hash.toLowerCase());
    try {
      const stale = evmChain.executeTransferOut(rpc.deps, row.id);
      await rpc.atHold;
      // Meanwhile another run replaces the transaction (same nonce, higher fees), records the
      // replacement before sending it, and it is mined.
      const [recorded] = await transfersOutOf(api.db, deposit.id);
      const old = parseTransaction(recorded!.rawTx as Hex);
      const raw = await account.signTransaction({
        chainId: 31337,
        type: "eip1559",
        nonce,
        to: old.to!,
        data: old.data!,
        gas: old.gas!,
        maxFeePerGas: old.maxFeePerGas! * 2n,
        maxPriorityFeePerGas: (old.maxPriorityFeePerGas ?? 1n) * 2n + 1n,
      });
      expect(await replaceTransferOutTx(api.db, row.id, hash, { rawTx: raw, txHash: keccak256(raw) })).toBeDefined();
      await chain.publicClient.waitForTransactionReceipt({ hash: await chain.publicClient.sendRawTransaction({ serializedTransaction: raw }) });
      rpc.release();
      expect(await stale).toMatchObject({ status: "confirmed", txHash: keccak256(raw), replacedTxHashes: [hash], error: null });
    } finally {
      rpc.stop();
    }
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 1_000_000n);
    expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toEqual({ swept: "0" });
  }, 60_000);

  // BUG: the sign step recorded its transaction over whatever the row had become: a refund
  // closed meanwhile (no longer owed, by another job's check) went back to `broadcast` and out.
  test("a transfer closed while it was being signed stays closed: nothing recorded, nothing sent", async () => {
    const deposit = await completedDeposit("1", 1_000_000n);
    const merchantBefore = await balanceOf(merchantWallet);
    const row = (await insertTransferOut(api.db, { paymentId: deposit.id, kind: "sweep", chainId: "31337", tokenAddress: usdc, toAddress: merchantWallet, amount: 1_000_000n }))!;
    // The signer's nonce lookup is answered only once the row has been closed.
    const rpc = heldRpc((call) => call.method === "eth_getTransactionCount");
    try {
      const signing = evmChain.executeTransferOut(rpc.deps, row.id);
      await rpc.atHold;
      await failTransferOut(api.db, row.id, "requested", { error: "closed by another job" });
      rpc.release();
      expect(await signing).toMatchObject({ status: "failed", txHash: null, error: "closed by another job" });
    } finally {
      rpc.stop();
    }
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore);
  }, 60_000);

  // BUG: confirming with a replaced transaction (the older one was mined) dropped the newer
  // hash from the row; a reorg that then mined the newer one instead left a row that knew
  // none of the mined transactions.
  test("confirmed with the transaction a replacement was meant to supersede: the replacement's hash stays on the row", async () => {
    const { deposit, row, hash } = await completedWithUnsentSweep("1", 1_000_000n);
    await replaceTransferOutTx(api.db, row.id, hash, { rawTx: "0x01", txHash: "0xnewer" });
    await confirmTransferOut(api.db, row.id, { blockNumber: 1n, txHash: hash });
    const [confirmed] = await transfersOutOf(api.db, deposit.id);
    expect(confirmed).toMatchObject({ status: "confirmed", txHash: hash, replacedTxHashes: ["0xnewer"] });
  });

  test("a mined sweep whose lookups fail (the provider answers 429) is not closed as failed; a later run confirms it, swept once", async () => {
    const { deposit, row, nonce, hash } = await completedWithUnsentSweep("1", 1_000_000n);
    const merchantBefore = await balanceOf(merchantWallet);
    // The recorded bytes reached the chain (a worker died before it heard back).
    const [recorded] = await transfersOutOf(api.db, deposit.id);
    await chain.publicClient.waitForTransactionReceipt({ hash: await chain.publicClient.sendRawTransaction({ serializedTransaction: recorded!.rawTx as Hex }) });
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 1_000_000n);

    // The worker reads the chain through a provider that rate-limits transaction and receipt lookups.
    const proxy = startRpcProxy(chain.anvil.rpcUrl);
    try {
      proxy.fail(["eth_getTransactionReceipt", "eth_getTransactionByHash"]);
      const networks = api.config.networks.map((n) => (n.shortName === "anvil" ? { ...n, rpcUrl: proxy.url } : n));
      const deps = { ...transferDeps(), config: { ...api.config, networks } };
      // The nonce is spent and the bytes are refused, but that is no proof the transaction was not ours: the job retries.
      await expect(sweep(deps)(job({ paymentId: deposit.id }))).rejects.toThrow();
      expect((await transfersOutOf(api.db, deposit.id)).map((r) => [r.status, r.txHash])).toEqual([["broadcast", hash]]);

      proxy.fail([]);
      expect(await sweep(deps)(job({ paymentId: deposit.id }))).toEqual({ swept: "0" });
    } finally {
      await proxy.stop();
    }
    const [done, ...others] = await transfersOutOf(api.db, deposit.id);
    expect(others).toEqual([]);
    expect(done).toMatchObject({ id: row.id, status: "confirmed", nonce, txHash: hash });
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 1_000_000n);
    expect(await balanceOf(deposit.depositAddress)).toBe(0n);
  }, 60_000);

  describe("a confirmed sweep a reorg removed while a refund of its payment is open", () => {
    /** A sweep recorded as confirmed whose transaction the chain no longer holds (a reorg took it), and an open refund of the same payment. */
    async function reorgedSweepWithOpenRefund(fees?: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }) {
      const { deposit, row, hash } = await completedWithUnsentSweep("1", 1_000_000n, fees);
      const block = await chain.publicClient.getBlockNumber({ cacheTime: 0 });
      await api.db.execute(sql`update transfers_out set status = 'confirmed', block_number = ${block.toString()}::numeric where id = ${row.id}`);
      const refundRow = (await insertTransferOut(api.db, { paymentId: deposit.id, kind: "refund", chainId: "31337", tokenAddress: usdc, toAddress: refundAddress, amount: 1n }))!;
      return { deposit, row, hash, refundRow };
    }
    const recheckRow = (id: string) => evmChain.recheckTransferOut(transferDeps(), id);

    test("the same bytes go out again without reopening the row (one open transfer a payment), and it is confirmed where they were mined", async () => {
      const { deposit, row, hash, refundRow } = await reorgedSweepWithOpenRefund();
      const merchantBefore = await balanceOf(merchantWallet);
      try {
        expect(await recheckRow(row.id)).toMatchObject({ status: "confirmed", txHash: hash });
        const receipt = await chain.publicClient.waitForTransactionReceipt({ hash: hash as Hex });
        expect(receipt.status).toBe("success");
        expect(await recheckRow(row.id)).toMatchObject({ status: "confirmed", txHash: hash, blockNumber: receipt.blockNumber });
        expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 1_000_000n);
        expect(await balanceOf(deposit.depositAddress)).toBe(0n);
      } finally {
        await api.db.execute(sql`update transfers_out set status = 'failed', error = 'test' where id = ${refundRow.id}`);
      }
    }, 60_000);

    // The recheck only re-sent the recorded bytes: a node refusing them (the base fee passed their
    // fee cap) left the nonce unused for good, every later transfer of the chain queued behind it,
    // and once the old block turned final the row was never looked at again.
    test("bytes the node refuses are signed again at today's fees once they have waited; confirmed where the new one was mined, swept once", async () => {
      const block = await chain.publicClient.getBlock();
      const { deposit, row, hash, refundRow } = await reorgedSweepWithOpenRefund({ maxFeePerGas: block.baseFeePerGas! * 2n, maxPriorityFeePerGas: 1n });
      await chain.rpc("anvil_setNextBlockBaseFeePerGas", [`0x${(block.baseFeePerGas! * 20n).toString(16)}`]);
      await chain.rpc("evm_mine");
      const merchantBefore = await balanceOf(merchantWallet);
      try {
        const missing = await recheckRow(row.id);
        expect(missing).toMatchObject({ status: "confirmed", txHash: hash, blockNumber: null, error: `transaction ${hash} left the chain in a reorg; sending it again` });
        // In no block, it stays among the rows the recheck looks at, however final its old block is.
        expect((await confirmedTransfersAbove(api.db, [{ chainId: "31337", finalized: 10n ** 9n }])).map((r) => r.id)).toContain(row.id);
        expect(await chain.publicClient.getTransaction({ hash: hash as Hex }).catch(() => null)).toBeNull();

        // Waited long enough: signed again under the same nonce, at today's fees.
        await api.db.execute(sql`update transfers_out set updated_at = now() - interval '1 hour' where id = ${row.id}`);
        const resigned = await recheckRow(row.id);
        expect(resigned).toMatchObject({ status: "confirmed", replacedTxHashes: [hash] });
        expect(resigned.txHash).not.toBe(hash);
        const receipt = await chain.publicClient.waitForTransactionReceipt({ hash: resigned.txHash as Hex });
        expect(receipt.status).toBe("success");
        expect(await recheckRow(row.id)).toMatchObject({ status: "confirmed", txHash: resigned.txHash, blockNumber: receipt.blockNumber, error: null });
        expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 1_000_000n);
        expect(await balanceOf(deposit.depositAddress)).toBe(0n);
      } finally {
        await api.db.execute(sql`update transfers_out set status = 'failed', error = 'test' where id = ${refundRow.id}`);
      }
    }, 60_000);

    test("mined again but reverted there: nothing moved, the sweep is owed again", async () => {
      const { deposit, row, hash, refundRow } = await reorgedSweepWithOpenRefund();
      const factoryCode = await chain.publicClient.getCode({ address: chain.factory });
      await chain.rpc("anvil_setCode", [chain.factory, "0x60006000fd"]); // every call reverts
      try {
        await recheckRow(row.id);
        expect((await chain.publicClient.waitForTransactionReceipt({ hash: hash as Hex })).status).toBe("reverted");
        expect(await recheckRow(row.id)).toMatchObject({ status: "failed", txHash: hash, error: `transaction ${hash} reverted after a reorg` });
        expect(await balanceOf(deposit.depositAddress)).toBe(1_000_000n);
      } finally {
        await chain.rpc("anvil_setCode", [chain.factory, factoryCode]);
        await api.db.execute(sql`update transfers_out set status = 'failed', error = 'test' where id = ${refundRow.id}`);
      }
      // Owed again: the next sweep forwards it once.
      const merchantBefore = await balanceOf(merchantWallet);
      expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toMatchObject({ swept: "1000000", status: "confirmed" });
      expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 1_000_000n);
    }, 60_000);
  });

  test("a sweep the chain keeps reverting is tried three times, then waits a day instead of burning gas", async () => {
    const deposit = await completedDeposit("1", 1_000_000n);
    // The factory takes sweeps from another operator now: every one of ours reverts (NotOperator).
    const owner = privateKeyToAccount(operatorKey);
    const setOperator = async (operator: Address) =>
      chain.publicClient.waitForTransactionReceipt({
        hash: await operatorWallet(api.config, api.config.networks.find((n) => n.shortName === "anvil")!).writeContract({
          account: owner,
          chain: null,
          address: chain.factory,
          abi: forwarderFactoryAbi,
          functionName: "setOperator",
          args: [operator],
        }),
      });
    await setOperator(privateKeyToAccount(anvilAccounts[9] as Hex).address);
    try {
      for (let i = 0; i < 3; i++) expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toMatchObject({ swept: "0", status: "failed" });
      expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toEqual({ swept: "0", waiting: "3 sweeps reverted on chain in the last 24 hours" });
      const rows = await transfersOutOf(api.db, deposit.id);
      expect(rows).toHaveLength(3);
      expect(rows.every((r) => r.status === "failed" && r.blockNumber !== null && /reverted/.test(r.error ?? ""))).toBe(true);
    } finally {
      await setOperator(owner.address);
    }

    // A day later (the cause fixed meanwhile) it is tried again, and goes out once.
    await api.db.execute(sql`update transfers_out set updated_at = now() - interval '25 hours' where payment_id = ${deposit.id}`);
    const merchantBefore = await balanceOf(merchantWallet);
    expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toMatchObject({ swept: "1000000", status: "confirmed" });
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 1_000_000n);
    expect(await balanceOf(deposit.depositAddress)).toBe(0n);
  }, 60_000);

  test("the operator cancels a stuck sweep: its nonce spent on a transfer of nothing, the row failed with nothing moved, then swept once under a new nonce", async () => {
    // A recorded sweep the node refuses (the base fee passed its fee) and that is not stale yet:
    // every later operator transaction on this chain would queue behind its nonce.
    const block = await chain.publicClient.getBlock();
    const { deposit, row, nonce } = await completedWithUnsentSweep("1", 1_000_000n, { maxFeePerGas: block.baseFeePerGas! * 2n, maxPriorityFeePerGas: 1n });
    await chain.rpc("anvil_setNextBlockBaseFeePerGas", [`0x${(block.baseFeePerGas! * 20n).toString(16)}`]);
    await chain.rpc("evm_mine");
    const cli = (command: string, flags: Record<string, string> = {}) =>
      commands[command]!({ db: api.db, config: api.config, databaseUrl: api.databaseUrl, logger }, flags);

    const listed = await cli("transfers list");
    expect(listed).toContain(`${row.id}  sweep  chain 31337  broadcast  nonce ${nonce}`);

    const output = await cli("transfers cancel", { id: row.id });
    expect(output).toMatch(/^Cancelling transaction 0x[0-9a-f]{64} \(nonce \d+\)\.\nCancelled, nothing moved: /);
    const cancelHash = /Cancelling transaction (0x[0-9a-f]{64})/.exec(output)![1] as Hex;
    const cancel = await chain.publicClient.getTransaction({ hash: cancelHash });
    const operator = privateKeyToAccount(operatorKey).address;
    expect(cancel).toMatchObject({ from: operator.toLowerCase(), to: operator.toLowerCase(), value: 0n, nonce });
    expect((await chain.publicClient.getTransactionReceipt({ hash: cancelHash })).status).toBe("success");
    const [cancelled] = await transfersOutOf(api.db, deposit.id);
    expect(cancelled).toMatchObject({ status: "failed", error: "nonce used by another transaction; not mined" });
    expect(await balanceOf(deposit.depositAddress)).toBe(1_000_000n); // nothing moved
    expect(await cli("transfers list")).not.toContain(row.id);

    // Cancelling it again, or something that does not exist, is refused with a reason.
    await expect(cli("transfers cancel", { id: row.id })).rejects.toThrow(/is already failed/);
    await expect(cli("transfers cancel", { id: "00000000-0000-4000-8000-000000000000" })).rejects.toThrow(/no sweep or refund with id/);
    await expect(cli("transfers cancel", { id: "nope" })).rejects.toThrow(UsageError);

    // The next sweep run sends it again under a new nonce, once.
    const merchantBefore = await balanceOf(merchantWallet);
    expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toMatchObject({ swept: "1000000", status: "confirmed" });
    const rows = await transfersOutOf(api.db, deposit.id);
    expect(rows.map((r) => r.status).sort()).toEqual(["confirmed", "failed"]);
    expect(rows.find((r) => r.status === "confirmed")!.nonce).toBeGreaterThan(nonce);
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 1_000_000n);
    expect(await balanceOf(deposit.depositAddress)).toBe(0n);
  }, 60_000);

  test("cancelling a sweep that waits in the node's pool outbids it there; the next sweep run sends it under a new nonce, once", async () => {
    const deposit = await completedDeposit("1", 1_000_000n);
    const deps = { ...transferDeps(), config: { ...api.config, transfers: { replaceAfterMs: 5_000 } } };
    const operator = privateKeyToAccount(operatorKey).address.toLowerCase();
    const merchantBefore = await balanceOf(merchantWallet);
    const until = async (check: () => Promise<boolean>, what: string) => {
      for (const deadline = Date.now() + 20_000; !(await check()); await Bun.sleep(20)) if (Date.now() > deadline) throw new Error(what);
    };
    const pooledToOperator = async () => {
      const pool = await chain.rpc<{ pending: Record<string, Record<string, { to: string }>> }>("txpool_content", []);
      return Object.values(pool.pending).some((byNonce) => Object.values(byNonce).some((tx) => tx.to.toLowerCase() === operator));
    };

    await chain.rpc("evm_setAutomine", [false]);
    let running: Promise<unknown> | undefined;
    let output: string;
    try {
      running = sweep(deps)(job({ paymentId: deposit.id }));
      let sent: TransferOutRow | undefined;
      await until(async () => {
        [sent] = await transfersOutOf(api.db, deposit.id);
        return sent?.status === "broadcast" && (await inPool(sent.txHash));
      }, "the sweep never reached the node");
      const cancelling = commands["transfers cancel"]!({ db: api.db, config: api.config, databaseUrl: api.databaseUrl, logger }, { id: sent!.id });
      await until(pooledToOperator, "the cancelling transaction never reached the node");
      expect(await inPool(sent!.txHash)).toBe(false); // the node swapped it for the cancel
      await chain.rpc("evm_mine");
      output = await cancelling;
    } finally {
      await chain.rpc("evm_setAutomine", [true]);
    }
    expect(output).toMatch(/Cancelled, nothing moved: .*\nThe sweep is owed again/);
    // The job that sent it sees the nonce taken, or (if it began waiting only after the swap,
    // so viem never saw the transaction) gives up after its wait, or finds the node refusing
    // its bytes now that the nonce is taken in the pool; either way nothing moved.
    expect(await running!.then((r) => (r as { status: string }).status, (e: Error) => e.message)).toMatch(/^failed$|not mined yet|the node refused transaction/);
    expect(await sweep(deps)(job({ paymentId: deposit.id }))).toMatchObject({ swept: "1000000", status: "confirmed" });
    const rows = await transfersOutOf(api.db, deposit.id);
    expect(rows.map((r) => r.status).sort()).toEqual(["confirmed", "failed"]);
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 1_000_000n);
    expect(await balanceOf(deposit.depositAddress)).toBe(0n);
  }, 60_000);

  test("records say completed but the address holds less (funds gone): nothing reserved, no failed sweeps pile up", async () => {
    const deposit = await completedDeposit("10", 10_000_000n);
    // What a reorg deeper than finality, or a recreated sandbox chain, leaves: the chain
    // no longer holds what was credited (here the address's USDC moved out by impersonation).
    await chain.rpc("anvil_impersonateAccount", [deposit.depositAddress]);
    await chain.rpc("anvil_setBalance", [deposit.depositAddress, "0xde0b6b3a7640000"]);
    const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [refundAddress, 6_000_000n], account: deposit.depositAddress, chain: null });
    await chain.publicClient.waitForTransactionReceipt({ hash });
    await chain.rpc("anvil_stopImpersonatingAccount", [deposit.depositAddress]);

    const merchantBefore = await balanceOf(merchantWallet);
    for (let i = 0; i < 3; i++) {
      expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toEqual({ swept: "0", waiting: "deposit address holds 4000000, less than the 10000000 owed" });
    }
    expect(await transfersOutOf(api.db, deposit.id)).toEqual([]);
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore);
    expect(await balanceOf(deposit.depositAddress)).toBe(4_000_000n);
  }, 60_000);

  test("an excess that leaves the evidence before its refund is signed (a reorg) is not paid back out of the merchant's amount", async () => {
    const deposit = await completedDeposit("5", 5_000_000n);
    const excess = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [deposit.depositAddress, 1_000_000n], account: customer, chain: null });
    await chain.publicClient.waitForTransactionReceipt({ hash: excess });
    await waitFor(deposit.id, (p) => p.excessOwed === "1");
    const request = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: merchantKeys(), body: { address: refundAddress } });
    expect(request.status).toBe(202);
    // Not final yet: it waits. Then a reorg takes the excess away (as the indexer rolls its row back).
    expect(await refund(transferDeps())(job({ transferId: request.body.refund.id }))).toMatchObject({ status: "requested", waiting: expect.stringMatching(/is not final yet/) });
    await api.db.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`); // past Ponder's own triggers (its live queries)
      // The chain's own Ponder's table (one Ponder per chain); the views schema's union cannot be written through.
      await tx.execute(sql`delete from ${sql.identifier(chainSchema(api.config.indexer.schema, String(chain.network.chainId)))}.token_transfer where tx_hash = ${excess.toLowerCase()}`);
    });
    await chain.mine(2);
    const before = await balanceOf(refundAddress);
    expect(await refund(transferDeps())(job({ transferId: request.body.refund.id }))).toMatchObject({ status: "failed", waiting: expect.stringMatching(/^no longer owed/) });
    expect(await balanceOf(refundAddress)).toBe(before);
    expect(await depositStatus(deposit.id)).toMatchObject({ status: "completed", excessOwed: "0" });
  }, 60_000);

  // Last: it moves the chain's clock past every open deposit's expiry.
  // BUG: a refund of a payment the merchant closed was signed from what ingest had read by
  // then; money stamped before the close but not read yet (ingest behind) completes the
  // payment once read, and the refund had paid the merchant's share back to the customer.
  test("a closed payment's refund waits until the chain is read past the close: money stamped before it completes the payment, nothing is paid back", async () => {
    const deposit = await createDeposit("1");
    await send(deposit.depositAddress, 600_000n);
    await chain.mine(2); // final
    await waitFor(deposit.id, (p) => p.amountReceived === "0.6");
    const deps = { ...transferDeps(), config: { ...api.config, transfers: { replaceAfterMs: 1_000 } } };
    const before = await balanceOf(refundAddress);
    await chain.rpc("evm_setAutomine", [false]);
    let transferId: string;
    try {
      // The rest is sent (in the node's pool, in no block yet) when the merchant closes the payment.
      await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [deposit.depositAddress, 400_000n], account: customer, chain: null });
      await Bun.sleep(2_000); // room for a block stamped between the last one and the close
      // It holds 0.6: closed with key + secret (issue 41: a public key closes only an empty payment).
      const closed = await api.request("/api/v1/payments/fail", { headers: { "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret }, body: { paymentId: deposit.id, status: "failed" } });
      expect(closed.status).toBe(200);
      const request = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: merchantKeys(), body: { address: refundAddress } });
      expect(request.status).toBe(202);
      expect(request.body.refund).toMatchObject({ status: "requested", amount: "0.6" });
      transferId = request.body.refund.id;
      expect(await refund(deps)(job({ transferId }))).toMatchObject({ status: "requested", waiting: expect.stringMatching(/not yet past the payment's close/) });
      // The block carrying the rest is stamped before the close (and read only now).
      const closedAt = Math.floor((await findPayment(api.db, deposit.id))!.closedAt!.getTime() / 1000);
      await chain.rpc("evm_setNextBlockTimestamp", [closedAt - 1]);
      await chain.rpc("evm_mine");
      // Then a block stamped after the close: the chain is read past it.
      await Bun.sleep(Math.max(0, (closedAt + 2) * 1000 - Date.now()));
      await chain.rpc("evm_setNextBlockTimestamp", [closedAt + 2]);
      await chain.rpc("evm_mine");
    } finally {
      await chain.rpc("evm_setAutomine", [true]);
    }
    const done = await (async () => {
      for (const until = Date.now() + 20_000; ; await Bun.sleep(100)) {
        await watchIngest(transferDeps()); // the recheck's look at ingest (a lag seen while blocks were mined closes)
        const result = (await refund(deps)(job({ transferId }))) as { status: string; waiting?: string };
        if (result.status !== "requested" || Date.now() > until) return result;
      }
    })();
    expect(done).toMatchObject({ status: "failed", waiting: expect.stringMatching(/no longer owed/) });
    expect(await balanceOf(refundAddress)).toBe(before);
    // Its second confirmation (the block after the close) may be counted a moment after the refund was judged.
    expect(await waitFor(deposit.id, (p) => p.status !== "confirming")).toMatchObject({ status: "completed", amountReceived: "1", excessOwed: "0", refunded: "0" });
  }, 60_000);

  // BUG: the refund counted money the settlement contract had paid straight to the merchant and took
  // it from the deposit address: out of the sweep the merchant was owed (the sweep then waited for good).
  test("a customer who paid twice (to the address, then through the contract): only what the address holds beyond the sweep is refunded", async () => {
    const created = await api.request("/api/v1/payments/create", { headers: headers(), body: { amount: "3", currency: "USDC", network: "anvil", orderId: `contract-${++orders}` } });
    expect(created.status).toBe(201);
    const payment = created.body.payment as { id: string; receiveAddress: Address; transactions: Array<{ to: Address; data: Hex }> };
    // 4 sent to the payment's address (3 owed, 1 over), then the wallet's approve + pay: 3 more, to the merchant through the contract.
    await send(payment.receiveAddress, 4_000_000n);
    for (const tx of payment.transactions) {
      const hash = await chain.customerWallet.sendTransaction({ to: tx.to, data: tx.data, account: customer, chain: null });
      await chain.publicClient.waitForTransactionReceipt({ hash });
    }
    await chain.mine(2); // final
    for (const until = Date.now() + 20_000; (await findPayment(api.db, payment.id))!.excessOwed !== 4_000_000n; await Bun.sleep(100)) {
      if (Date.now() > until) throw new Error("the second payment was not credited");
    }
    expect((await findPayment(api.db, payment.id))!).toMatchObject({ status: "completed", completedVia: "transfer" });
    const before = await balanceOf(refundAddress);
    const request = await api.request(`/api/v1/deposits/refund-request/${payment.id}`, { headers: merchantKeys(), body: { address: refundAddress } });
    expect(request.status).toBe(202);
    expect(request.body.refund).toMatchObject({ status: "requested", amount: "1" });
    expect(await refund(transferDeps())(job({ transferId: request.body.refund.id }))).toMatchObject({ status: "confirmed" });
    expect(await balanceOf(refundAddress)).toBe(before + 1_000_000n);
    // The other 3 reached the merchant through the contract: theirs to return; the service says so and reserves nothing.
    const rest = await api.request(`/api/v1/deposits/refund-request/${payment.id}`, { headers: merchantKeys(), body: { address: refundAddress } });
    expect(rest.status).toBe(409);
    expect(rest.body).toMatchObject({ error: "refund_not_held" });
    expect(rest.body.message).toContain("owes the customer 3000000");
    // The sweep still finds the merchant's 3 at the address.
    const merchantBefore = await balanceOf(merchantWallet);
    expect(await sweep(transferDeps())(job({ paymentId: payment.id }))).toMatchObject({ swept: "3000000", status: "confirmed" });
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 3_000_000n);
  }, 60_000);

  test("money after expiry is late: expired, owed back in full, refunded once", async () => {
    const deposit = await createDeposit("10");
    await send(deposit.depositAddress, 4_000_000n);
    await waitFor(deposit.id, (p) => p.amountReceived === "4");
    await chain.rpc("evm_increaseTime", [16 * 60]);
    await send(deposit.depositAddress, 6_000_000n);
    const expired = await waitFor(deposit.id, (p) => p.status === "expired");
    expect(expired).toMatchObject({ amountReceived: "10", excessOwed: "10", lateAmount: "6", amountRemaining: "0" });

    const request = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: merchantKeys(), body: { address: refundAddress } });
    expect(request.status).toBe(202);
    const before = await balanceOf(refundAddress);
    // The late transfer's block is not final yet: a reorg could still take it back, so nothing is sent from it.
    const early = await refund(transferDeps())(job({ transferId: request.body.refund.id }));
    expect(early).toMatchObject({ status: "requested", waiting: expect.stringMatching(/is not final yet/) });
    expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toMatchObject({ swept: "0", waiting: expect.stringMatching(/is not final yet/) });
    expect(await balanceOf(refundAddress)).toBe(before);
    await chain.mine(2);
    expect(await refund(transferDeps())(job({ transferId: request.body.refund.id }))).toMatchObject({ status: "confirmed" });
    expect(await balanceOf(refundAddress)).toBe(before + 10_000_000n);
    expect(await balanceOf(deposit.depositAddress)).toBe(0n);
    // Nothing is swept to the merchant for an expired payment.
    expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toEqual({ swept: "0" });
    expect(await depositStatus(deposit.id)).toMatchObject({ status: "expired", excessOwed: "0", refunded: "10" });
  }, 60_000);
});

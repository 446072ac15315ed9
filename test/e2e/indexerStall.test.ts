import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { erc20Abi, type Address } from "viem";
import { createLogger } from "../../config/logger.ts";
import { queryRows } from "../../db/client.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { refund } from "../../jobs/refund.ts";
import { indexedBlocks } from "../../rails/evm/readModel/indexedBlocks.ts";
import { reconcilePayments, watchIngest } from "../../reconcile/index.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * Indexer-aware expiry with the real indexer: it is stopped while two deposits are open;
 * one is paid in time; the chain moves past their deadline (20 minutes on, 10 blocks);
 * nothing expires while the indexer is behind. Restarted, it reads the payment, which
 * completes (never `expired` in between); the watch closes the stall and gives the
 * unpaid deposit back the time the indexer was behind; it expires — with one
 * `payment.expired` — only after the indexer has read past its new deadline.
 */
let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>> | undefined;
const logger = createLogger({ level: "silent" });
const SHIFT_S = 20 * 60;

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 2 });
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
}, 120_000);

afterAll(async () => {
  await indexer?.stop();
  await api?.close();
  await chain?.stop();
});

const headers = () => ({ "x-public-key": merchant.publicKey });
const ctx = () => ({ config: api.config, db: api.db, logger });
const statusOf = async (id: string) => (await api.request(`/api/v1/payments/${id}/status`, { headers: headers() })).body.payment as { status: string; amountReceived: string; expiresAt: string };
const eventsOf = async (id: string) =>
  (await queryRows<{ type: string }>(api.db, sql`select type from payment_events where payment_id = ${id} order by created_at, id`)).map((e) => e.type);

async function indexedToHead() {
  const head = BigInt(await chain.rpc<string>("eth_blockNumber")); // not viem's getBlockNumber: it caches for seconds
  const deadline = Date.now() + 60_000;
  while (((await indexedBlocks(api.db, api.config.indexer.viewsSchema)).get("31337") ?? -1n) < head) {
    if (Date.now() > deadline) throw new Error(`the indexer did not reach block ${head}: ${(await indexedBlocks(api.db, api.config.indexer.viewsSchema)).get("31337")}`);
    await Bun.sleep(100);
  }
}

async function deposit(amount: string) {
  const created = await api.request("/api/v1/deposits/create", { headers: headers(), body: { amount, currency: "USDC", network: "anvil", orderId: crypto.randomUUID() } });
  expect(created.status).toBe(201);
  return created.body.payment as { id: string; depositAddress: Address; expiresAt: string };
}

// BUG: a refund waited only for the credits the indexer holds; an excess the customer
// submitted (POST /payments/process) while the indexer was behind counted toward what is
// owed but not toward that wait, and its refund was signed before its block was final.
test("an excess known only from the customer's submission is refunded only once its block is final", async () => {
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  const usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  const pay = async (to: Address, amount: bigint) => {
    const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [to, amount], account: customer, chain: null });
    await chain.publicClient.waitForTransactionReceipt({ hash });
    return hash;
  };
  const paid = await deposit("2");
  await pay(paid.depositAddress, 2_000_000n);
  await chain.mine(3);
  await indexedToHead();
  await reconcilePayments(api.db, api.config, [paid.id]);
  expect(await statusOf(paid.id)).toMatchObject({ status: "completed", amountReceived: "2" });

  await indexer.stop();
  indexer = undefined;
  const excess = await pay(paid.depositAddress, 1_000_000n);
  const submitted = await api.request("/api/v1/payments/process", { headers: headers(), body: { paymentId: paid.id, txHash: excess } });
  expect(submitted.status).toBe(200);
  expect(submitted.body.payment).toMatchObject({ amountReceived: "3" });
  const refundTo = "0x00000000000000000000000000000000000000b0";
  // An address other than the payer's: the merchant's to send (key + secret).
  const request = await api.request(`/api/v1/deposits/refund-request/${paid.id}`, { headers: { "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret }, body: { address: refundTo } });
  expect(request.status).toBe(202);
  const run = () => refund({ ...ctx(), databaseUrl: api.databaseUrl })({ data: { transferId: request.body.refund.id }, id: "test" } as never);
  expect(await run()).toMatchObject({ status: "requested", waiting: expect.stringMatching(/is not final yet/) });
  const balance = () => chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [refundTo] });
  expect(await balance()).toBe(0n);

  // Final now (the indexer still stopped): the refund goes out from money the chain cannot take back.
  await chain.mine(3);
  expect(await run()).toMatchObject({ status: "confirmed" });
  expect(await balance()).toBe(1_000_000n);
}, 120_000);

test("a customer who paid in time is never expired because the indexer fell behind; the unpaid one gets the time back", async () => {
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  const paid = await deposit("4");
  const unpaid = await deposit("5");
  const done = await deposit("3"); // paid and completed before the indexer stops
  const usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  await chain.publicClient.waitForTransactionReceipt({
    hash: await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [done.depositAddress, 3_000_000n], account: customer, chain: null }),
  });
  await chain.mine(3);
  await indexedToHead();
  await reconcilePayments(api.db, api.config, [done.id]);
  expect(await statusOf(done.id)).toMatchObject({ status: "completed", amountReceived: "3" });
  await watchIngest(ctx()); // at the head: every block until now is read

  await indexer.stop();
  indexer = undefined;
  const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [paid.depositAddress, 4_000_000n], account: customer, chain: null });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  // The chain runs on past both deadlines (15 minutes) while nobody reads it.
  await chain.rpc("evm_increaseTime", [SHIFT_S]);
  await chain.mine(10);
  const later = () => new Date(Date.now() + SHIFT_S * 1000);

  for (const p of [paid, unpaid]) expect((await reconcilePayments(api.db, api.config, [p.id], later())).get(p.id)!.after.status).toBe("pending");
  await watchIngest(ctx(), later()); // 11 blocks behind: a stall, dated from the last block read
  const [stall] = await queryRows<{ stalled_since: Date }>(api.db, sql`select stalled_since from ingest_watch where chain_id = '31337'`);
  expect(new Date(stall!.stalled_since).getTime()).toBeLessThan(Date.parse(paid.expiresAt));
  expect(await statusOf(paid.id)).toMatchObject({ status: "pending", amountReceived: "0" });
  expect(await statusOf(unpaid.id)).toMatchObject({ status: "pending" });

  // The indexer comes back (Ponder first rolls back to its finalized block, then reads on
  // when the next block arrives): a completed payment stays completed meanwhile …
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  await reconcilePayments(api.db, api.config, [done.id], later());
  expect(await statusOf(done.id)).toMatchObject({ status: "completed", amountReceived: "3" });
  // … and the payment made in time completes.
  await chain.mine(1);
  await indexedToHead();
  await reconcilePayments(api.db, api.config, [paid.id, unpaid.id], later());
  expect(await statusOf(paid.id)).toMatchObject({ status: "completed", amountReceived: "4" });
  expect(await eventsOf(paid.id)).not.toContain("payment.expired");
  expect((await statusOf(unpaid.id)).status).toBe("pending"); // the stall is still open until the watch sees the catch-up

  // The watch sees it caught up: the unpaid deposit's deadline moves by the time the indexer was behind (about 20 minutes).
  const caughtUpAt = later();
  await watchIngest(ctx(), caughtUpAt);
  const extended = Date.parse((await statusOf(unpaid.id)).expiresAt);
  const gained = extended - Date.parse(unpaid.expiresAt);
  expect(gained).toBeGreaterThan((SHIFT_S - 60) * 1000);
  expect(gained).toBeLessThan((SHIFT_S + 120) * 1000);
  await reconcilePayments(api.db, api.config, [unpaid.id], new Date(caughtUpAt.getTime() + 1000));
  expect((await statusOf(unpaid.id)).status).toBe("pending");
  expect(await eventsOf(unpaid.id)).not.toContain("payment.expired");

  // Past the new deadline, once the indexer has read a block stamped after it: expired, once.
  await chain.rpc("evm_increaseTime", [SHIFT_S]);
  await chain.mine(1);
  await indexedToHead();
  const afterDeadline = new Date(extended + 60_000);
  await reconcilePayments(api.db, api.config, [unpaid.id], afterDeadline);
  await reconcilePayments(api.db, api.config, [unpaid.id], afterDeadline);
  expect((await statusOf(unpaid.id)).status).toBe("expired");
  expect((await eventsOf(unpaid.id)).filter((t) => t === "payment.expired")).toHaveLength(1);
}, 180_000);

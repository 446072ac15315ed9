import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { encodeFunctionData, erc20Abi, parseUnits, type Address } from "viem";
import { createLogger } from "../../config/logger.ts";
import { findBridgeRequest } from "../../db/bridgeRequests.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { readBooks, startLocalRelayer } from "../../rails/bridge/local/index.ts";
import { relayerAddress, relayerKey, startBridgeChains, type BridgeChains } from "../../harness/bridgeChains.ts";
import { customer, merchantWallet, operatorKey, startTestIndexer } from "../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { startWebhookReceiver, waitUntil, type WebhookReceiver } from "../../harness/webhookReceiver.ts";

/**
 * Cross-chain payments end to end through the local bridge: the customer pays a deposit
 * address on `anvil-2`, the relayer fills the merchant's wallet on `anvil` from its own
 * liquidity (real token transfers on both chains), the bridge job follows it, the real
 * indexer's head counts the fill's confirmations, and webhooks go to the callbackUrl.
 */
let chains: BridgeChains;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let relayer: ReturnType<typeof startLocalRelayer>;
let receiver: WebhookReceiver;
let miner: ReturnType<typeof setInterval>;
const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" });
const relayerStart: Record<string, bigint> = {};

beforeAll(async () => {
  chains = await startBridgeChains({ requiredConfirmations: 2 });
  api = await createTestApi({
    env: {
      NETWORKS_FILE: chains.networksFile,
      OPERATOR_PRIVATE_KEY: operatorKey,
      BRIDGE_ADAPTER: "local",
      BRIDGE_LOCAL_RELAYER_KEY: relayerKey,
      BRIDGE_LOCAL_FEE_BPS: "10",
      // The relayer acts on a deposit once it has 2 blocks: until then it is "deposit_detected".
      BRIDGE_LOCAL_CONFIRMATIONS: "2",
      BRIDGE_LOCAL_POLL_MS: "200",
      BRIDGE_POLL_INTERVAL_MS: "300",
    },
  });
  merchant = await api.seedMerchant();
  // The merchant settles on anvil only: anvil-2 is where customers pay from.
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
  receiver = startWebhookReceiver();
  relayerStart.origin = await chains.balanceOf(chains.origin, "USDC", relayerAddress);
  relayerStart.destination = await chains.balanceOf(chains.destination, "USDC", relayerAddress);
  indexer = await startTestIndexer(api.config, api.databaseUrl, chains.networksFile);
  workers = await startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
  relayer = startLocalRelayer({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
  await relayer.ready;
  // The merchant's chain moves on, so the fill gains confirmations.
  miner = setInterval(() => void chains.destination.mine(1).catch(() => {}), 400);
}, 180_000);

afterAll(async () => {
  clearInterval(miner);
  const bounded = (p: Promise<unknown> | undefined) => Promise.race([p, Bun.sleep(15_000)]);
  await bounded(relayer?.stop());
  await bounded(workers?.close());
  await bounded(indexer?.stop());
  receiver?.stop();
  await bounded(api?.close());
  await bounded(chains?.stop());
});

const headers = () => ({ "x-public-key": merchant.publicKey });
let orders = 0;

type Created = { id: string; relayDepositAddress: Address; amountToSend: string; amountToSendFormatted: string; expiresAt: string };

async function create(body: Record<string, unknown> = {}): Promise<Created> {
  const response = await api.request("/api/v1/payments/cross-chain/create", {
    headers: headers(),
    body: { amount: "25.5", originChainId: 31338, originCurrency: "USDC", orderId: `xc-${++orders}`, callbackUrl: receiver.url(`/hooks/${orders}`), ...body },
  });
  expect(response.status).toBe(201);
  return response.body.payment;
}

const bridgeView = async (id: string) => {
  const response = await api.request(`/api/v1/payments/cross-chain/status/${id}`, { headers: headers() });
  expect(response.status).toBe(200);
  return response.body.payment;
};

/** Reads the status view until `done` holds, recording every bridgeStatus seen on the way. */
async function follow(id: string, done: (view: any) => boolean, seen: string[] = [], timeoutMs = 45_000) {
  return waitUntil(
    `payment ${id}`,
    async () => {
      const view = await bridgeView(id);
      if (seen.at(-1) !== view.bridgeStatus) seen.push(view.bridgeStatus);
      return done(view) ? view : undefined;
    },
    timeoutMs,
  );
}

/** Pays on the origin chain, then mines the block that gives the deposit its second confirmation. */
async function payConfirmed(to: Address, units: bigint) {
  const hash = await chains.pay("USDC", to, units);
  await chains.origin.mine(1);
  return hash;
}

/** The webhooks received for an order, in the order their events happened (deliveries run concurrently: arrival order is not event order). */
const webhookTypes = (orderNo: number) =>
  receiver
    .at(`/hooks/${orderNo}`)
    .map((r) => JSON.parse(r.body) as { type: string; timestamp: string; data: any })
    .sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
/** Whether a `bridge.updated` webhook with this bridge status has arrived among `events`. */
const bridgeUpdated = (events: ReturnType<typeof webhookTypes>, status: string) => events.some((e) => e.type === "bridge.updated" && e.data.bridge.status === status);

describe("paid on anvil-2, settled on anvil", () => {
  test("the merchant receives exactly the amount on anvil; statuses move through the bridge states; webhooks fire", async () => {
    const merchantBefore = await chains.balanceOf(chains.destination, "USDC", merchantWallet);
    const payment = await create();
    const orderNo = orders;
    // 25.5 USDC plus the relayer's 0.1%.
    expect(payment).toMatchObject({ status: "pending", amountToSend: "25525500", amountToSendFormatted: "25.5255", originChainId: 31338, originCurrency: "USDC" });
    expect((payment as any).destination).toEqual({ network: "anvil", currency: "USDC", amount: "25.5" });

    const seen: string[] = [];
    const waiting = await follow(payment.id, (v) => v.bridgeStatus === "awaiting_deposit", seen);
    expect(waiting).toMatchObject({ status: "pending", amountReceived: "0", bridgeStatus: "awaiting_deposit" });

    const depositTx = await chains.pay("USDC", payment.relayDepositAddress, 25_525_500n);
    // Seen, verified on anvil-2, not yet acted on: nothing counts toward the payment.
    const detected = await follow(payment.id, (v) => v.bridgeStatus === "deposit_detected", seen);
    expect(detected).toMatchObject({ status: "pending", amountReceived: "0", confirmations: 0 });
    expect(detected.bridge.origin).toMatchObject({ depositTxHashes: [depositTx], amountDeposited: "25.5255" });
    await chains.origin.mine(1);
    // Completed on the fill's confirmations; the bridge's own "success" may come one poll later.
    const done = await follow(payment.id, (v) => v.status === "completed" && v.bridgeStatus === "completed", seen);

    expect(done).toMatchObject({ status: "completed", amount: "25.5", amountReceived: "25.5", bridgeStatus: "completed", network: "anvil", requiredConfirmations: 2 });
    expect(done.confirmations).toBeGreaterThanOrEqual(2);
    expect(done.bridge.origin).toMatchObject({ chainId: 31338, currency: "USDC", depositTxHashes: [depositTx], amountDeposited: "25.5255" });
    expect(done.bridge.destination.fillTxHashes).toHaveLength(1);
    expect(done.bridge.destination.amountFilled).toBe("25.5");
    expect(done.transactionHash).toBe(done.bridge.destination.fillTxHashes[0]);
    expect(done.bridge.refund).toMatchObject({ refundTxHashes: [], amountRefunded: "0" });
    // The bridge's states in order (a fast bridge may skip some between two reads).
    const order = ["awaiting_deposit", "deposit_detected", "bridging", "completed"];
    expect(seen[0]).toBe("awaiting_deposit");
    expect(seen).toContain("deposit_detected");
    expect(seen.at(-1)).toBe("completed");
    expect(seen.map((s) => order.indexOf(s))).toEqual([...seen.map((s) => order.indexOf(s))].sort((a, b) => a - b));

    expect(await chains.balanceOf(chains.destination, "USDC", merchantWallet)).toBe(merchantBefore + 25_500_000n);
    // The plain status view carries bridgeStatus too.
    const status = await api.request(`/api/v1/payments/${payment.id}/status`, { headers: headers() });
    expect(status.body.payment).toMatchObject({ status: "completed", bridgeStatus: "completed", amountReceived: "25.5" });

    // Webhooks are not sent in order (several attempts to one URL run at once): wait for each.
    const expected = ["payment.created", "bridge.updated", "payment.detected", "payment.confirmed", "payment.completed"];
    const events = await waitUntil("the webhooks", () => {
      const received = webhookTypes(orderNo);
      return expected.every((type) => received.some((e) => e.type === type)) && bridgeUpdated(received, "completed") ? received : undefined;
    });
    const types = events.map((e) => e.type);
    for (const type of expected) expect(types).toContain(type);
    const bridgeStates = events.filter((e) => e.type === "bridge.updated").map((e) => e.data.bridge.status);
    expect(bridgeStates[0]).toBe("deposit_detected");
    expect(bridgeStates.at(-1)).toBe("completed");
    // The payment completes on the fill's confirmations on the merchant's chain; the bridge's own word
    // ("success") is read on its poll, so the snapshot in payment.completed may still say bridging.
    const completed = events.find((e) => e.type === "payment.completed")!.data.payment;
    expect(completed).toMatchObject({ status: "completed", depositMethod: "bridge", amountReceived: "25.5" });
    expect(["bridging", "completed"]).toContain(completed.bridgeStatus);
  }, 90_000);

  test("an overpayment fills the amount and returns the excess to the sender on anvil-2", async () => {
    const payment = await create({ amount: "3" });
    const customerBefore = await chains.balanceOf(chains.origin, "USDC", customer.address);
    await payConfirmed(payment.relayDepositAddress, BigInt(payment.amountToSend) + 1_000_000n);
    const done = await follow(payment.id, (v) => v.status === "completed" && v.bridge.refund.amountRefunded === "1");
    expect(done).toMatchObject({ amountReceived: "3", bridgeStatus: "completed" });
    expect(done.bridge.refund.refundTxHashes).toHaveLength(1);
    expect(await chains.balanceOf(chains.origin, "USDC", customer.address)).toBe(customerBefore - BigInt(payment.amountToSend));
  }, 90_000);
});

describe("refunds", () => {
  test("an underpayment is refunded on the origin: bridge refunded, payment failed, the merchant paid nothing", async () => {
    const merchantBefore = await chains.balanceOf(chains.destination, "USDC", merchantWallet);
    const payment = await create({ amount: "7" });
    const orderNo = orders;
    const customerBefore = await chains.balanceOf(chains.origin, "USDC", customer.address);
    const short = BigInt(payment.amountToSend) - 1n;
    await payConfirmed(payment.relayDepositAddress, short);

    const seen: string[] = [];
    const done = await follow(payment.id, (v) => v.bridgeStatus === "refunded" && v.bridge.refund.amountRefunded !== "0", seen);
    expect(done).toMatchObject({ status: "failed", amountReceived: "0", bridgeStatus: "refunded" });
    expect(done.closedReason).toContain("underpaid");
    expect(done.bridge.refund).toMatchObject({ address: null, amountRefunded: "7.006999" });
    expect(done.bridge.refund.refundTxHashes).toHaveLength(1);
    expect(done.bridge.destination.fillTxHashes).toEqual([]);
    expect(seen).not.toContain("completed");
    expect(await chains.balanceOf(chains.origin, "USDC", customer.address)).toBe(customerBefore);
    expect(await chains.balanceOf(chains.destination, "USDC", merchantWallet)).toBe(merchantBefore);

    const events = await waitUntil("payment.failed and the refund's bridge.updated", () => {
      const received = webhookTypes(orderNo);
      return received.some((e) => e.type === "payment.failed") && bridgeUpdated(received, "refunded") ? received : undefined;
    });
    const refunded = events.filter((e) => e.type === "bridge.updated").at(-1)!;
    expect(refunded.data.bridge).toMatchObject({ status: "refunded", refund: { amountRefunded: "7.006999" } });
    expect(events.map((e) => e.type)).not.toContain("payment.completed");
  }, 90_000);
});

describe("the merchant cancels", () => {
  test("a deposit waiting for the bridge is returned: the service asks the bridge for a refund", async () => {
    const payment = await create({ amount: "6" });
    const customerBefore = await chains.balanceOf(chains.origin, "USDC", customer.address);
    await chains.pay("USDC", payment.relayDepositAddress, BigInt(payment.amountToSend));
    await follow(payment.id, (v) => v.bridgeStatus === "deposit_detected");
    // A payment holding money (a deposit detected) is closed with key + secret (issue 41: a public key closes only an empty one).
    const secret = { "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret };
    const cancelled = await api.request("/api/v1/payments/fail", { headers: secret, body: { paymentId: payment.id, status: "cancelled", reason: "out of stock" } });
    expect(cancelled.status).toBe(200);
    const refunding = await follow(payment.id, (v) => v.bridgeStatus === "refunding");
    expect(refunding.bridge.refund.requestedAt).not.toBeNull();
    // The relayer acts once the deposit has its confirmations: it returns it instead of filling.
    await chains.origin.mine(1);
    const done = await follow(payment.id, (v) => v.bridgeStatus === "refunded" && v.bridge.refund.amountRefunded !== "0");
    expect(done).toMatchObject({ status: "cancelled", amountReceived: "0", bridge: { refund: { amountRefunded: "6.006" }, destination: { fillTxHashes: [] } } });
    expect(await chains.balanceOf(chains.origin, "USDC", customer.address)).toBe(customerBefore);
  }, 90_000);

  // BUG: the service asked the bridge for a refund only once a deposit was listed, so a
  // deposit made after the cancel (the customer's wallet still held the address) was filled.
  test("cancelled before the customer paid: a deposit made afterwards is returned, never filled", async () => {
    const payment = await create({ amount: "4" });
    const customerBefore = await chains.balanceOf(chains.origin, "USDC", customer.address);
    const merchantBefore = await chains.balanceOf(chains.destination, "USDC", merchantWallet);
    const cancelled = await api.request("/api/v1/payments/fail", { headers: headers(), body: { paymentId: payment.id, status: "cancelled" } });
    expect(cancelled.status).toBe(200);
    // Nothing is under way while nothing was deposited: the request waits, told to return what comes.
    const told = await follow(payment.id, (v) => v.bridge.refund.requestedAt !== null);
    expect(told).toMatchObject({ status: "cancelled", bridgeStatus: "awaiting_deposit" });
    await chains.pay("USDC", payment.relayDepositAddress, BigInt(payment.amountToSend));
    await chains.origin.mine(1);
    const done = await follow(payment.id, (v) => v.bridgeStatus === "refunded" && v.bridge.refund.amountRefunded !== "0");
    expect(done).toMatchObject({ status: "cancelled", amountReceived: "0", bridge: { refund: { amountRefunded: "4.004" }, destination: { fillTxHashes: [] } } });
    expect(await chains.balanceOf(chains.origin, "USDC", customer.address)).toBe(customerBefore);
    expect(await chains.balanceOf(chains.destination, "USDC", merchantWallet)).toBe(merchantBefore);
  }, 90_000);
});

describe("NO_ROUTE", () => {
  test("more than the relayer can deliver: 422 NO_ROUTE with the bridge's own words", async () => {
    const response = await api.request("/api/v1/payments/cross-chain/create", {
      headers: headers(),
      body: { amount: "5000000", originChainId: 31338, originCurrency: "USDC" },
    });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ success: false, code: "NO_ROUTE" });
    expect(response.body.error).toStartWith("Insufficient liquidity: the local relayer holds");
  });

  // BUG: the local bridge took a payment of 0.000001 USDC (201, a deposit address) where a real
  // bridge answers NO_ROUTE: the relayer's fee on it could never pay for the fill's gas.
  test("below the local bridge's minimum: 422 NO_ROUTE stating it; sources lists it per route; the minimum itself is taken", async () => {
    const sources = await api.request("/api/v1/payments/cross-chain/sources");
    expect(sources.status).toBe(200);
    const routes = sources.body.sources.find((s: { shortName: string }) => s.shortName === "anvil-2").routes;
    expect(routes).toEqual([{ destination: "anvil", minimumAmount: expect.stringMatching(/^0\.\d+$/) }]);

    const response = await api.request("/api/v1/payments/cross-chain/create", {
      headers: headers(),
      body: { amount: "0.000001", originChainId: 31338, originCurrency: "USDC", orderId: `xc-tiny-${++orders}` },
    });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ success: false, code: "NO_ROUTE" });
    const stated = /delivers at least (\d+\.\d+) USDC/.exec(response.body.error)?.[1];
    expect(response.body.error).toBe(
      `Amount too low for the local bridge: from Anvil 2 to Anvil it delivers at least ${stated} USDC, so that the relayer's 10 bps fee covers the gas of its fill on Anvil at the current gas price.`,
    );
    // What sources said a moment ago (the chain's gas price is read at most every 15 s).
    expect(stated).toBe(routes[0].minimumAmount);
    // Derived as the relayer's costs are: a transfer's gas at the chain's gas price, the coin at $2 (BRIDGE_LOCAL_NATIVE_USD), over its 0.1%.
    const usdc = chains.destination.tokens.find((t) => t.symbol === "USDC")!.address;
    const gas = await chains.destination.publicClient.estimateGas({
      account: relayerAddress,
      to: usdc,
      data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: ["0x000000000000000000000000000000000000bEEF", 1n] }),
    });
    const expected = Number((gas * (await chains.destination.publicClient.getGasPrice()) * 2n) / 10n ** 12n) * 1_000;
    expect(Number(parseUnits(stated!, 6))).toBeGreaterThan(expected * 0.5);
    expect(Number(parseUnits(stated!, 6))).toBeLessThan(expected * 2.5);

    // At the minimum: a deposit address, as for any amount above it.
    const at = await api.request("/api/v1/payments/cross-chain/create", {
      headers: headers(),
      body: { amount: stated, originChainId: 31338, originCurrency: "USDC", orderId: `xc-minimum-${++orders}` },
    });
    expect(at.status).toBe(201);
    expect(at.body.payment.destination).toEqual({ network: "anvil", currency: "USDC", amount: stated });
  });
});

// BUG: the local bridge's quote wrote its books through the pool while the create's
// transaction held a connection and the key's lock: a pool's worth of concurrent creates
// (duplicates of one key waiting on that lock) left the quote no connection, for good.
test("more concurrent duplicates of one create than the API's database pool holds: every one answered, one payment", async () => {
  const key = crypto.randomUUID();
  const body = { amount: "1", originChainId: 31338, originCurrency: "USDC" };
  const send = () => api.request("/api/v1/payments/cross-chain/create", { headers: { ...headers(), "Idempotency-Key": key }, body });
  const answers = await Promise.race([Promise.all(Array.from({ length: 8 }, send)), Bun.sleep(20_000).then(() => null)]);
  expect(answers).not.toBeNull();
  expect(answers!.map((a) => a.status)).toEqual(Array(8).fill(201));
  expect(new Set(answers!.map((a) => a.body.payment.id)).size).toBe(1);
});

describe("expiry, honoured to the second", () => {
  /**
   * Makes the origin chain's next block carry this timestamp (anvil), so a deposit lands exactly
   * then. Each test's deadline lies past the blocks the one before stamped (60, 120, 180 s out):
   * a chain's timestamps cannot go back, and a test run in under a second made the next deadline
   * earlier than the last stamped block.
   */
  const nextBlockAt = (at: Date) => chains.origin.rpc("evm_setNextBlockTimestamp", [`0x${(at.getTime() / 1000).toString(16)}`]);

  test("the bridge job records how far the relayer has scanned the origin (expiry waits for it): up to a block stamped past the deadline", async () => {
    const payment = await create({ amount: "2", expiresIn: 60 });
    const deadline = new Date(payment.expiresAt);
    const seen = async () => (await findBridgeRequest(api.db, payment.id))?.seenThrough ?? null;
    // Scanned up to blocks stamped now: short of the deadline a minute away.
    await waitUntil("a scan recorded", async () => ((await seen()) ? true : undefined));
    expect((await seen())!.getTime()).toBeLessThan(deadline.getTime());
    await nextBlockAt(new Date(deadline.getTime() + 1_000));
    await chains.origin.mine(1);
    const through = await waitUntil("the block past the deadline scanned and recorded", async () => {
      const at = await seen();
      return at && at > deadline ? at : undefined;
    });
    // The origin's newest block is stamped in the future now: its time, not the scan's, is the bound.
    expect(through).toEqual(new Date(deadline.getTime() + 1_000));
  }, 90_000);

  test("a deposit in the block stamped at the expiry is credited", async () => {
    const payment = await create({ amount: "2", expiresIn: 120 });
    expect(new Date(payment.expiresAt).getMilliseconds()).toBe(0);
    await nextBlockAt(new Date(payment.expiresAt));
    await payConfirmed(payment.relayDepositAddress, BigInt(payment.amountToSend));
    // Completed on the fill's confirmations; the bridge's own "success" may come one poll later.
    const done = await follow(payment.id, (v) => v.status === "completed" && v.bridgeStatus === "completed");
    expect(done).toMatchObject({ amountReceived: "2", bridgeStatus: "completed" });
    expect(done.bridge.origin.depositedAt).toBe(payment.expiresAt);
  }, 90_000);

  test("a deposit one second late is refunded, not credited", async () => {
    const merchantBefore = await chains.balanceOf(chains.destination, "USDC", merchantWallet);
    const payment = await create({ amount: "2", expiresIn: 180 });
    await nextBlockAt(new Date(new Date(payment.expiresAt).getTime() + 1_000));
    await payConfirmed(payment.relayDepositAddress, BigInt(payment.amountToSend));
    const done = await follow(payment.id, (v) => v.bridgeStatus === "refunded" && v.bridge.refund.amountRefunded !== "0");
    expect(done).toMatchObject({ status: "failed", amountReceived: "0" });
    expect(done.closedReason).toContain("late");
    expect(done.bridge.refund.amountRefunded).toBe(done.bridge.amountToSendFormatted);
    expect(await chains.balanceOf(chains.destination, "USDC", merchantWallet)).toBe(merchantBefore);
  }, 90_000);
});

test("the relayer's books balance: what came in = fills + fees + refunds, and match both chains", async () => {
  const books = await waitUntil("the relayer to settle everything", async () => {
    const b = await readBooks(api.db);
    return b.held === 0n && b.collected === b.fillValue + b.fees ? b : undefined;
  });
  expect(books.depositsIn).toBe(books.fillValue + books.fees + books.refunded);
  expect(books.depositsIn).toBeGreaterThan(0n);
  expect(books.refunded).toBeGreaterThan(0n);
  // Same decimals on both sides here: a fill's value is the amount delivered.
  expect(books.fillValue).toBe(books.filledOut);
  expect(await chains.balanceOf(chains.origin, "USDC", relayerAddress)).toBe(relayerStart.origin! + books.collected);
  expect(await chains.balanceOf(chains.destination, "USDC", relayerAddress)).toBe(relayerStart.destination! - books.filledOut);
  expect(books.fees).toBe(parseUnits("0.0255", 6) + parseUnits("0.003", 6) + parseUnits("0.002", 6));
}, 60_000);

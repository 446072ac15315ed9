import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createWalletClient, erc20Abi, http, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { anvilAccounts } from "@stablepay/devchain/evm";
import { createLogger } from "../../config/logger.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { transfersOutOf } from "../../db/transfersOut.ts";
import { refund } from "../../jobs/refund.ts";
import { sweep } from "../../jobs/sweep.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { MAX_AWAITING_REQUESTS, refundMessage } from "../../payouts/index.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * Refunds tried as a stranger would: the public key ships in every checkout bundle and the
 * payment id sits in every checkout link, so both are the attacker's. A deposit overpaid by
 * 2 USDC on a real anvil, credited by the real indexer, refunded by the real refund job:
 * the stranger's address gets nothing through any door; the customer's own request, a
 * payer's signature or the merchant's approval send the excess, never more, exactly once.
 */
let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let other: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let usdc: Address;
/** A second customer with its own funds (account 3): a payment two addresses paid. */
const secondPayer = privateKeyToAccount(anvilAccounts[3] as Hex);
const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 2, alsoFund: [secondPayer.address] });
  usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant();
  other = await api.seedMerchant("Another merchant");
  const network = api.config.networks.find((n) => n.shortName === "anvil")!;
  await setSettlementWallet(api.db, merchant.id, network.id, merchantWallet);
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  // Sweeps and refunds are driven by the tests themselves (the transfers worker is left out).
  workers = await startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl, transfers: false });
}, 120_000);

afterAll(async () => {
  const bounded = (p: Promise<unknown> | undefined) => Promise.race([p, Bun.sleep(15_000)]);
  await bounded(workers?.close());
  await bounded(indexer?.stop());
  await bounded(api?.close());
  await bounded(chain?.stop());
});

const publicKey = () => ({ "x-public-key": merchant.publicKey });
const keyAndSecret = (m = merchant) => ({ "x-api-key": m.testApiKey, "x-api-secret": m.testApiSecret });
const transferDeps = () => ({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
const job = <T,>(data: T) => ({ data, id: "test" }) as never;
const balanceOf = (owner: Address) => chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [owner] });
const stranger = () => privateKeyToAccount(generatePrivateKey());

let orders = 0;
async function createDeposit(amount: string) {
  const body = { amount, currency: "USDC", network: "anvil", expiresIn: 60, orderId: `refunds-${++orders}` };
  const response = await api.request("/api/v1/deposits/create", { headers: publicKey(), body });
  expect(response.status).toBe(201);
  return response.body.payment as { id: string; depositAddress: Address };
}

async function pay(from: PrivateKeyAccount, to: Address, units: bigint) {
  const wallet = createWalletClient({ account: from, transport: http(chain.anvil.rpcUrl) });
  const hash = await wallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [to, units], account: from, chain: null });
  await chain.publicClient.waitForTransactionReceipt({ hash });
}

async function depositStatus(id: string) {
  const response = await api.request(`/api/v1/deposits/status/${id}`, { headers: publicKey() });
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

/** A 10 USDC deposit paid 12 by `payments` (the customer's by default), completed, its blocks final: 2 USDC owed back. */
async function overpaid(payments: Array<[PrivateKeyAccount, bigint]> = [[customer, 12_000_000n]]) {
  const deposit = await createDeposit("10");
  for (const [from, units] of payments) await pay(from, deposit.depositAddress, units);
  await chain.mine(3);
  await waitFor(deposit.id, (p) => p.status === "completed" && p.excessOwed === "2");
  return deposit;
}

/** Every refund door: the checkout page's (no credentials) and the public key's, versioned and not. */
const doors = (id: string) => [
  { path: `/api/v1/payments/public/${id}/refund-request`, headers: {} },
  { path: `/api/payments/public/${id}/refund-request`, headers: {} },
  { path: `/api/v1/deposits/refund-request/${id}`, headers: publicKey() },
  { path: `/api/deposits/refund-request/${id}`, headers: publicKey() },
];

const message = (id: string, to: string, amount: string) => refundMessage({ paymentId: id, to, amount, token: "USDC", network: "Anvil", chainId: "31337" });
const refundsOf = async (id: string) => (await transfersOutOf(api.db, id)).filter((t) => t.kind === "refund");
const eventsOf = async (id: string) => {
  const feed = await api.request(`/api/v1/events?paymentId=${id}&limit=100`, { headers: keyAndSecret() });
  expect(feed.status).toBe(200);
  return feed.body.events as Array<{ type: string; data: { refundRequest?: Record<string, unknown> } }>;
};

describe("a stranger with the public key and the payment id", () => {
  test("posting its own address to every refund door receives nothing: each is a request awaiting approval; the customer's own request gets the excess back", async () => {
    const deposit = await overpaid();
    const strangers = doors(deposit.id).map(() => stranger().address);
    for (const [i, door] of doors(deposit.id).entries()) {
      const answer = await api.request(door.path, { headers: door.headers, body: { address: strangers[i] } });
      expect([door.path, answer.status, answer.body.refundRequest?.status, answer.body.refund]).toEqual([door.path, 202, "awaiting_approval", undefined]);
      expect(answer.body.refundRequest).toMatchObject({ to: strangers[i], amount: "2", token: "USDC", requestedBy: "customer", authorizedBy: null, transferId: null });
      expect(answer.body.refundRequest.message).toBe(message(deposit.id, strangers[i]!, "2"));
    }
    // Asked again for the same address: the same request, not another webhook.
    const again = await api.request(doors(deposit.id)[0]!.path, { body: { address: strangers[0] } });
    expect(again.status).toBe(202);
    expect((await eventsOf(deposit.id)).filter((e) => e.type === "refund.requested").map((e) => e.data.refundRequest?.to)).toEqual(strangers);
    expect(await refundsOf(deposit.id)).toEqual([]);

    // The customer, by the checkout page's door with no address: back to the address that paid.
    const before = await balanceOf(customer.address);
    const own = await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: {} });
    expect(own.status).toBe(202);
    expect(own.body.refund).toMatchObject({ status: "requested", amount: "2", to: customer.address });
    expect(own.body.refundRequest).toMatchObject({ status: "sent", authorizedBy: "payer", to: customer.address, message: null });
    expect(await refund(transferDeps())(job({ transferId: own.body.refund.id }))).toMatchObject({ status: "confirmed" });
    expect(await balanceOf(customer.address)).toBe(before + 2_000_000n);
    for (const address of strangers) expect(await balanceOf(address as Address)).toBe(0n);
    // The strangers' requests are closed by the refund that went out; approving one now sends nothing.
    const listed = await api.request(`/api/v1/payments/${deposit.id}/refund-requests`, { headers: keyAndSecret() });
    expect(listed.status).toBe(200);
    expect(listed.body.refundRequests.map((r: { status: string }) => r.status)).toEqual(["superseded", "superseded", "superseded", "superseded", "sent"]);
    const late = await api.request(`/api/v1/payments/${deposit.id}/refund-requests/${listed.body.refundRequests[0].id}/approve`, { headers: keyAndSecret(), body: {} });
    expect([late.status, late.body.error]).toEqual([409, "refund_request_closed"]);
    // The merchant's 10 is still swept whole.
    expect(await sweep(transferDeps())(job({ paymentId: deposit.id }))).toMatchObject({ swept: "10000000", status: "confirmed" });
    expect(await balanceOf(deposit.depositAddress)).toBe(0n);
  }, 90_000);

  test("the customer naming its own paying address (in any letter case) is refunded; a later request to the payer replaces one awaiting approval", async () => {
    const deposit = await overpaid();
    const exchange = stranger().address;
    const waiting = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: publicKey(), body: { address: exchange } });
    expect(waiting.body.refundRequest.status).toBe("awaiting_approval");
    const own = await api.request(`/api/deposits/refund-request/${deposit.id}`, { headers: publicKey(), body: { address: customer.address.toLowerCase(), reason: "overpaid" } });
    expect(own.status).toBe(202);
    expect(own.body.refund).toMatchObject({ amount: "2", to: customer.address, reason: "overpaid" });
    const listed = await api.request(`/api/v1/payments/${deposit.id}/refund-requests`, { headers: keyAndSecret() });
    expect(listed.body.refundRequests.map((r: { to: string; status: string }) => [r.to, r.status])).toEqual([
      [exchange, "superseded"],
      [customer.address, "sent"],
    ]);
    const before = await balanceOf(customer.address);
    expect(await refund(transferDeps())(job({ transferId: own.body.refund.id }))).toMatchObject({ status: "confirmed" });
    expect(await balanceOf(customer.address)).toBe(before + 2_000_000n);
    expect(await balanceOf(exchange)).toBe(0n);
  }, 90_000);

  test("a stranger cannot pile up requests: past MAX_AWAITING_REQUESTS awaiting approval, more are refused until the merchant decides", async () => {
    const deposit = await overpaid();
    for (let i = 0; i < MAX_AWAITING_REQUESTS; i++) {
      expect((await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: { address: stranger().address } })).status).toBe(202);
    }
    const more = await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: { address: stranger().address } });
    expect([more.status, more.body.error]).toEqual([409, "too_many_refund_requests"]);
    // The customer's own refund still goes, and closes them all.
    const own = await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: {} });
    expect(own.body.refund).toMatchObject({ amount: "2", to: customer.address });
    expect(await refund(transferDeps())(job({ transferId: own.body.refund.id }))).toMatchObject({ status: "confirmed" });
    const pending = await api.request(`/api/v1/refund-requests?status=awaiting_approval&limit=100`, { headers: keyAndSecret() });
    expect(pending.body.refundRequests.filter((r: { paymentId: string }) => r.paymentId === deposit.id)).toEqual([]);
  }, 90_000);
});

describe("a request for another address", () => {
  test("signed by the paying address (EIP-191) is honoured at once, for no more than is owed; a forged or wrong signature is refused", async () => {
    const deposit = await overpaid();
    const elsewhere = stranger().address;
    const attacker = stranger();
    const post = (body: Record<string, unknown>) => api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body });
    // Signed by someone who did not pay, over the wrong amount, address or payment: 403, nothing recorded.
    const forgeries = [
      { address: attacker.address, amount: "2", signature: await attacker.signMessage({ message: message(deposit.id, attacker.address, "2") }) },
      { address: attacker.address, amount: "2", signature: await customer.signMessage({ message: message(deposit.id, elsewhere, "2") }) },
      { address: elsewhere, amount: "2", signature: await customer.signMessage({ message: message(deposit.id, elsewhere, "1.5") }) },
      { address: elsewhere, amount: "2", signature: await customer.signMessage({ message: message("00000000-0000-4000-8000-000000000000", elsewhere, "2") }) },
      { address: elsewhere, amount: "2", signature: "0xdeadbeef" },
    ];
    for (const forged of forgeries) {
      const refused = await post(forged);
      expect([refused.status, refused.body.error]).toEqual([403, "refund_signature_invalid"]);
    }
    expect((await post({ address: elsewhere, signature: "0x00" })).status).toBe(400); // no amount
    expect(await refundsOf(deposit.id)).toEqual([]);

    // The payer signs for 5: no more than the 2 owed goes.
    const signature = await customer.signMessage({ message: message(deposit.id, elsewhere, "5") });
    const signed = await post({ address: elsewhere, amount: "5", signature });
    expect(signed.status).toBe(202);
    expect(signed.body.refund).toMatchObject({ amount: "2", to: elsewhere });
    expect(signed.body.refundRequest).toMatchObject({ status: "sent", authorizedBy: "signature", signer: customer.address });
    expect(await refund(transferDeps())(job({ transferId: signed.body.refund.id }))).toMatchObject({ status: "confirmed" });
    expect(await balanceOf(elsewhere)).toBe(2_000_000n);
    // The same signature again lets nothing more out.
    const replay = await post({ address: elsewhere, amount: "5", signature });
    expect(replay.status).toBe(409);
    expect(await balanceOf(elsewhere)).toBe(2_000_000n);
  }, 90_000);

  test("approved by the merchant with key + secret is sent; the public key, no key or another merchant's cannot approve; a rejected one never sends", async () => {
    const deposit = await overpaid();
    const exchange = stranger().address;
    const asked = await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: { address: exchange, reason: "paid from an exchange" } });
    expect(asked.body.refundRequest.status).toBe("awaiting_approval");
    const id = asked.body.refundRequest.id;
    const approve = `/api/v1/payments/${deposit.id}/refund-requests/${id}/approve`;

    const refusedHeaders: Array<Record<string, string>> = [publicKey(), {}, { "x-public-key": merchant.publicKey, "x-api-key": merchant.testApiKey }, { "x-api-key": merchant.testApiKey, "x-api-secret": "wrong" }];
    for (const headers of refusedHeaders) {
      const refused = await api.request(approve, { headers, body: {} });
      expect(refused.status).toBe(401);
    }
    for (const path of [approve, approve.replace("/approve", "/reject"), `/api/v1/payments/${deposit.id}/refund-requests`]) {
      const refused = await api.request(path, { headers: publicKey(), ...(path.endsWith("refund-requests") ? {} : { body: {} }) });
      expect([path, refused.status]).toEqual([path, 401]);
      const foreign = await api.request(path, { headers: keyAndSecret(other), ...(path.endsWith("refund-requests") ? {} : { body: {} }) });
      expect([path, foreign.status]).toEqual([path, 404]);
    }
    expect((await api.request("/api/v1/refund-requests", { headers: publicKey() })).status).toBe(401);
    expect(await refundsOf(deposit.id)).toEqual([]);

    // The merchant's list shows it awaiting, then the merchant approves.
    const pending = await api.request("/api/v1/refund-requests?status=awaiting_approval", { headers: keyAndSecret() });
    expect(pending.body.refundRequests.map((r: { id: string }) => r.id)).toContain(id);
    expect((await api.request("/api/v1/refund-requests?status=awaiting_approval", { headers: keyAndSecret(other) })).body.refundRequests).toEqual([]);
    const approved = await api.request(approve, { headers: keyAndSecret(), body: {} });
    expect(approved.status).toBe(202);
    expect(approved.body.refund).toMatchObject({ amount: "2", to: exchange, reason: "paid from an exchange" });
    expect(approved.body.refundRequest).toMatchObject({ id, status: "sent", authorizedBy: "merchant" });
    expect((await api.request(approve, { headers: keyAndSecret(), body: {} })).body.error).toBe("refund_request_closed");
    expect(await refund(transferDeps())(job({ transferId: approved.body.refund.id }))).toMatchObject({ status: "confirmed" });
    expect(await balanceOf(exchange)).toBe(2_000_000n);

    // Rejected: it stays rejected, and sends nothing.
    const second = await overpaid();
    const wrong = stranger().address;
    const request = (await api.request(`/api/v1/payments/public/${second.id}/refund-request`, { body: { address: wrong } })).body.refundRequest;
    const rejected = await api.request(`/api/v1/payments/${second.id}/refund-requests/${request.id}/reject`, { headers: keyAndSecret(), body: {} });
    expect(rejected.status).toBe(200);
    expect(rejected.body.refundRequest).toMatchObject({ status: "rejected", to: wrong });
    const afterwards = await api.request(`/api/v1/payments/${second.id}/refund-requests/${request.id}/approve`, { headers: keyAndSecret(), body: {} });
    expect([afterwards.status, afterwards.body.error]).toEqual([409, "refund_request_closed"]);
    expect(await refundsOf(second.id)).toEqual([]);
    expect(await balanceOf(wrong)).toBe(0n);
  }, 120_000);

  test("the merchant's key + secret on /deposits/refund-request sends anywhere, still no more than is owed", async () => {
    const deposit = await overpaid();
    const elsewhere = stranger().address;
    const sent = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: keyAndSecret(), body: { address: elsewhere } });
    expect(sent.status).toBe(202);
    expect(sent.body.refund).toMatchObject({ amount: "2", to: elsewhere });
    expect(sent.body.refundRequest).toMatchObject({ requestedBy: "merchant", authorizedBy: "merchant" });
    expect(await refund(transferDeps())(job({ transferId: sent.body.refund.id }))).toMatchObject({ status: "confirmed" });
    const more = await api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: keyAndSecret(), body: { address: elsewhere } });
    expect([more.status, more.body.error]).toEqual([409, "nothing_to_refund"]);
    expect(await balanceOf(elsewhere)).toBe(2_000_000n);
  }, 90_000);
});

describe("several addresses paid", () => {
  test("the default refund is refused; a payer's address waits; a payer's signature takes at most what that payer sent", async () => {
    // 9 from the customer, 3 from the second payer: 12 for a 10 payment.
    const deposit = await overpaid([
      [customer, 9_000_000n],
      [secondPayer, 3_000_000n],
    ]);
    const refused = await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: {} });
    expect([refused.status, refused.body.error]).toEqual([409, "refund_address_required"]);
    const asPayer = await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: { address: customer.address } });
    expect([asPayer.status, asPayer.body.refundRequest.status]).toEqual([202, "awaiting_approval"]);
    expect(await refundsOf(deposit.id)).toEqual([]);
    // The second payer signs for its own address: it sent 3, 2 are owed: 2 go.
    const before = await balanceOf(secondPayer.address);
    const signature = await secondPayer.signMessage({ message: message(deposit.id, secondPayer.address, "2") });
    const signed = await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: { address: secondPayer.address, amount: "2", signature } });
    expect(signed.status).toBe(202);
    expect(signed.body.refund).toMatchObject({ amount: "2", to: secondPayer.address });
    expect(await refund(transferDeps())(job({ transferId: signed.body.refund.id }))).toMatchObject({ status: "confirmed" });
    expect(await balanceOf(secondPayer.address)).toBe(before + 2_000_000n);
    // The customer's request awaiting approval was superseded by it.
    const listed = await api.request(`/api/v1/payments/${deposit.id}/refund-requests`, { headers: keyAndSecret() });
    expect(listed.body.refundRequests.map((r: { status: string }) => r.status)).toEqual(["superseded", "sent"]);
  }, 90_000);

  test("a payer who sent less than is owed can sign for no more than it sent", async () => {
    const deposit = await overpaid([
      [customer, 11_000_000n],
      [secondPayer, 1_000_000n],
    ]);
    const elsewhere = stranger().address;
    const signature = await secondPayer.signMessage({ message: message(deposit.id, elsewhere, "2") });
    const signed = await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: { address: elsewhere, amount: "2", signature } });
    expect(signed.status).toBe(202);
    expect(signed.body.refund).toMatchObject({ amount: "1", to: elsewhere });
  }, 90_000);
});

describe("races: exactly one transfer goes out, and the amounts add up on chain", () => {
  test("two refund requests at once: one refund, the other refused", async () => {
    const deposit = await overpaid();
    const before = await balanceOf(customer.address);
    const answers = await Promise.all([
      api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: {} }),
      api.request(`/api/v1/deposits/refund-request/${deposit.id}`, { headers: publicKey(), body: { address: customer.address } }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409]);
    // Refused while the first is in flight, or as nothing is owed once it is reserved.
    expect(["refund_in_progress", "nothing_to_refund"]).toContain(answers.find((a) => a.status === 409)!.body.error);
    const [row] = await refundsOf(deposit.id);
    expect(await refundsOf(deposit.id)).toHaveLength(1);
    expect(await refund(transferDeps())(job({ transferId: row!.id }))).toMatchObject({ status: "confirmed" });
    expect(await balanceOf(customer.address)).toBe(before + 2_000_000n);
  }, 90_000);

  test("two approvals at once, and a signed request beside them: one refund", async () => {
    const deposit = await overpaid();
    const exchange = stranger().address;
    const id = (await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: { address: exchange } })).body.refundRequest.id;
    const approve = () => api.request(`/api/v1/payments/${deposit.id}/refund-requests/${id}/approve`, { headers: keyAndSecret(), body: {} });
    const elsewhere = stranger().address;
    const signature = await customer.signMessage({ message: message(deposit.id, elsewhere, "2") });
    const signed = () => api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: { address: elsewhere, amount: "2", signature } });
    const answers = await Promise.all([approve(), approve(), signed()]);
    expect(answers.map((a) => a.status).sort()).toEqual([202, 409, 409]);
    const rows = await refundsOf(deposit.id);
    expect(rows).toHaveLength(1);
    expect(await refund(transferDeps())(job({ transferId: rows[0]!.id }))).toMatchObject({ status: "confirmed" });
    expect((await balanceOf(exchange)) + (await balanceOf(elsewhere))).toBe(2_000_000n);
  }, 90_000);

  test("two refund jobs at once: one transaction", async () => {
    const deposit = await overpaid();
    const before = await balanceOf(customer.address);
    const asked = await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: {} });
    const results = await Promise.all([refund(transferDeps())(job({ transferId: asked.body.refund.id })), refund(transferDeps())(job({ transferId: asked.body.refund.id }))]);
    expect(results.map((r) => r.status)).toEqual(["confirmed", "confirmed"]);
    expect(await balanceOf(customer.address)).toBe(before + 2_000_000n);
    expect((await refundsOf(deposit.id)).map((r) => [r.status, r.amount])).toEqual([["confirmed", 2_000_000n]]);
  }, 90_000);

  test("a refund racing a sweep on one deposit address: the merchant gets 10, the payer 2, the address is empty", async () => {
    const deposit = await overpaid();
    const [customerBefore, merchantBefore] = [await balanceOf(customer.address), await balanceOf(merchantWallet)];
    const asked = api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: {} });
    const swept = sweep(transferDeps())(job({ paymentId: deposit.id }));
    const [answer] = await Promise.all([asked, swept]);
    if (answer.status === 202) await refund(transferDeps())(job({ transferId: answer.body.refund.id }));
    else expect(answer.body.error).toBe("refund_in_progress");
    // Whichever came second: each runs again until nothing is owed.
    for (let i = 0; i < 3; i++) {
      await sweep(transferDeps())(job({ paymentId: deposit.id }));
      const again = await api.request(`/api/v1/payments/public/${deposit.id}/refund-request`, { body: {} });
      if (again.status === 202) await refund(transferDeps())(job({ transferId: again.body.refund.id }));
    }
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore + 10_000_000n);
    expect(await balanceOf(customer.address)).toBe(customerBefore + 2_000_000n);
    expect(await balanceOf(deposit.depositAddress)).toBe(0n);
    const rows = await transfersOutOf(api.db, deposit.id);
    expect(rows.filter((r) => r.status === "confirmed").map((r) => [r.kind, r.amount]).sort()).toEqual([
      ["refund", 2_000_000n],
      ["sweep", 10_000_000n],
    ]);
  }, 90_000);
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { HTTPFacilitatorClient, x402ResourceServer } from "@x402/core/server";
import { ExactEvmScheme as ExactEvmClientScheme, toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme as ExactEvmServerScheme } from "@x402/evm/exact/server";
import { decodePaymentResponseHeader, wrapFetchWithPaymentFromConfig } from "@x402/fetch";
import { paymentMiddleware } from "@x402/hono";
import { Hono } from "hono";
import { erc20Abi, getAddress, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { paymentSettlementAbi } from "../../contracts/artifacts/index.ts";
import { createLogger } from "../../config/logger.ts";
import { forgetSettlerAnswers } from "../../rails/x402/settlerProblem.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { revertOf } from "../../harness/tokenChain.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../harness/webhookReceiver.ts";
import { untilValue } from "../../harness/until.ts";

/**
 * x402 end to end with the protocol's own packages: an agent's `@x402/fetch` (an `@x402/evm`
 * signer) pays a resource behind `@x402/hono`'s middleware, which asks our facilitator (over
 * HTTP, with the merchant's key + secret) to verify and settle on anvil; the worker has the
 * settlement contract pull the authorization with the operator's key (its settler) and pay the
 * merchant less the service fee, and the payment goes through the ledger as any other.
 */
const NETWORK = "eip155:31337" as const;
const PRICE = 10_000n; // 0.01 USDC
const FEE_BPS = 250n; // 2.5%
const FEE = (PRICE * FEE_BPS) / 10_000n;
const feeRecipient = privateKeyToAccount(generatePrivateKey()).address;
const budgetAgent = privateKeyToAccount(generatePrivateKey());

let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let other: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let receiver: WebhookReceiver;
let apiServer: ReturnType<typeof Bun.serve>;
let resourceServer: ReturnType<typeof Bun.serve>;
let usdc: Address;
let facilitatorUrl: string;

const secret = (m: TestMerchant) => ({ "x-api-key": m.testApiKey, "x-api-secret": m.testApiSecret });

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 1, alsoFund: [budgetAgent.address] });
  usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  api = await createTestApi({
    env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey, X402_SETTLE_WAIT_MS: "20000", FEE_BPS: FEE_BPS.toString(), FEE_RECIPIENT: feeRecipient },
  });
  merchant = await api.seedMerchant();
  other = await api.seedMerchant("Another merchant");
  const network = api.config.networks.find((n) => n.shortName === "anvil")!;
  await setSettlementWallet(api.db, merchant.id, network.id, merchantWallet);
  await setSettlementWallet(api.db, other.id, network.id, privateKeyToAccount(generatePrivateKey()).address);
  receiver = startWebhookReceiver(() => 200);
  expect((await api.request("/api/v1/webhook-endpoints", { headers: secret(merchant), body: { url: receiver.url("/endpoint") } })).status).toBe(201);
  // The facilitator over HTTP, as a merchant's resource server reaches it.
  apiServer = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => api.app.handle(new Request(`http://localhost${new URL(request.url).pathname}`, request)) });
  facilitatorUrl = `http://127.0.0.1:${apiServer.port}/api/v1/x402`;
  resourceServer = startResourceServer(facilitatorUrl, merchant);
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  workers = await startWorkers({ config: api.config, db: api.db, logger: createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" }), databaseUrl: api.databaseUrl });
}, 120_000);

afterAll(async () => {
  const step = async (name: string, fn: () => Promise<unknown> | undefined) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const slow = new Promise((resolve) => (timer = setTimeout(() => resolve(console.error(`teardown step "${name}" took over 15 s`)), 15_000)));
    await Promise.race([fn(), slow]);
    clearTimeout(timer);
  };
  await step("servers", async () => {
    resourceServer?.stop(true);
    apiServer?.stop(true);
    receiver?.stop();
  });
  await step("workers", () => workers?.close());
  await step("indexer", () => indexer?.stop());
  await step("api", () => api?.close());
  await step("chain", () => chain?.stop());
});

/** The merchant's own server: one paid route, `@x402/hono` pointed at our facilitator with its key + secret, paid into the settlement contract. */
function startResourceServer(url: string, owner: TestMerchant) {
  const auth = secret(owner);
  const facilitator = new HTTPFacilitatorClient({ url, createAuthHeaders: async () => ({ verify: auth, settle: auth, supported: auth }) });
  const server = new x402ResourceServer(facilitator).register(NETWORK, new ExactEvmServerScheme());
  const app = new Hono();
  app.use(
    paymentMiddleware(
      {
        "GET /report": {
          accepts: { scheme: "exact", network: NETWORK, payTo: chain.settlement, price: { asset: usdc, amount: PRICE.toString(), extra: { name: "USD Coin", version: "2" } } },
          description: "Today's market report",
        },
      },
      server,
    ),
  );
  app.get("/report", (c) => c.json({ report: "all quiet" }));
  return Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch });
}

const reportUrl = () => `http://127.0.0.1:${resourceServer.port}/report`;
/** The agent's client: the sandbox's USDC is no default asset of x402's, so it is allowed by name (capped at the price). */
const clientConfig = (account: PrivateKeyAccount) => ({
  schemes: [{ network: NETWORK, client: new ExactEvmClientScheme(toClientEvmSigner(account, chain.publicClient as never)) }],
  spendControls: { allowedAssets: [{ network: NETWORK, asset: usdc, maxAmountPerPayment: PRICE.toString() }] },
});
const payingFetch = (account: PrivateKeyAccount) => wrapFetchWithPaymentFromConfig(fetch, clientConfig(account));
const balanceOf = (owner: Address) => chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [owner] });

type Listed = { id: string; status: string; agentId: string | null; amount: string };
const listed = async () => (await api.request("/api/v1/payments/merchant/list?limit=100", { headers: { "x-public-key": merchant.publicKey } })).body.payments as Listed[];

/** A payment payload the official client signs for the route, captured on its way to the resource server. */
async function signedPayment(account: PrivateKeyAccount): Promise<{ header: string; decoded: { accepted: Record<string, unknown>; payload: Record<string, unknown> } & Record<string, unknown> }> {
  let header = "";
  const capture: typeof fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const sent = request.headers.get("payment-signature");
    if (sent) {
      header = sent;
      return new Response("captured", { status: 418 });
    }
    return fetch(request);
  }) as typeof fetch;
  await wrapFetchWithPaymentFromConfig(capture, clientConfig(account))(reportUrl());
  expect(header).not.toBe("");
  return { header, decoded: JSON.parse(Buffer.from(header, "base64").toString("utf8")) };
}

const requirementsOf = (decoded: { accepted: Record<string, unknown> }) => decoded.accepted;
const facilitator = (path: string, headers: Record<string, string>, body?: unknown) =>
  api.request(`/api/v1/x402${path}`, { method: body === undefined ? "GET" : "POST", headers, body });

describe("x402: an agent pays per request", () => {
  test("the official client pays a route behind the official middleware: served, paid to the merchant's wallet less the fee, in the ledger with the payer as agent and the fee, webhook sent", async () => {
    const before = await balanceOf(merchantWallet);
    const feesBefore = await balanceOf(feeRecipient);
    const response = await payingFetch(customer)(reportUrl());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ report: "all quiet" });
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response")!);
    expect(settlement.success).toBe(true);
    expect(settlement.payer).toBe(customer.address);
    expect(settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    // The contract passed it on in the same transaction: the merchant less the fee, the fee to FEE_RECIPIENT, nothing kept.
    expect(FEE).toBe(250n);
    expect(await balanceOf(merchantWallet)).toBe(before + PRICE - FEE);
    expect(await balanceOf(feeRecipient)).toBe(feesBefore + FEE);
    expect(await balanceOf(chain.settlement)).toBe(0n);

    const payment = (await untilValue("the x402 payment completed", listed, (list) => list.some((p) => p.status === "completed")))[0]!;
    expect(payment).toMatchObject({ status: "completed", agentId: customer.address, amount: "0.01" });
    // The full view carries what was paid for, and by whom.
    const full = await api.request(`/api/v1/payments/${payment.id}`, { headers: secret(merchant) });
    expect(full.body.payment.metadata).toMatchObject({ x402: { payer: customer.address, resource: { url: reportUrl(), description: "Today's market report" } } });
    expect(full.body.payment.transactionHash).toBe(settlement.transaction);
    // The ledger shows the fee as on any contract payment.
    expect(full.body.payment.settlement).toMatchObject({ amount: "0.01", feeAmount: "0.00025", merchantAmount: "0.00975", feeRecipient, merchantWallet, status: "settled" });
    const stats = await api.request("/api/v1/payments/merchant/stats", { headers: { "x-public-key": merchant.publicKey } });
    expect(stats.body.stats.agentPayments).toBe(1);

    const completed = await untilValue(
      "payment.completed webhook",
      async () => receiver.at("/endpoint").map((r) => JSON.parse(r.body) as { type: string; data: { id?: string; payment?: { id: string } } }),
      (events) => events.some((e) => e.type === "payment.completed"),
    );
    expect(completed.map((e) => e.type)).toEqual(expect.arrayContaining(["payment.created", "payment.completed"]));
  }, 60_000);

  test("a replayed payload is refused at verify; settling it again is the same settlement, not a second payment", async () => {
    const { header, decoded } = await signedPayment(customer);
    const requirements = requirementsOf(decoded);
    const first = await facilitator("/settle", secret(merchant), { x402Version: 2, paymentPayload: decoded, paymentRequirements: requirements });
    expect(first.body).toMatchObject({ success: true, payer: customer.address, network: NETWORK });
    const paymentsAfterFirst = (await listed()).length;

    const replayedVerify = await facilitator("/verify", secret(merchant), { x402Version: 2, paymentPayload: decoded, paymentRequirements: requirements });
    expect(replayedVerify.body).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_payload_authorization_nonce_used" });
    // Through the middleware: the resource is not served again for the same payment.
    const replayed = await fetch(reportUrl(), { headers: { "payment-signature": header } });
    expect(replayed.status).toBe(402);
    const again = await facilitator("/settle", secret(merchant), { x402Version: 2, paymentPayload: decoded, paymentRequirements: requirements });
    expect(again.body).toEqual(first.body);
    expect((await listed()).length).toBe(paymentsAfterFirst);
    // Another merchant cannot claim it.
    const stolen = await facilitator("/settle", secret(other), { x402Version: 2, paymentPayload: decoded, paymentRequirements: requirements });
    expect(stolen.body).toMatchObject({ success: false, errorReason: "invalid_exact_evm_payload_authorization_nonce_used" });
  }, 60_000);

  test("a tampered accepted, or requirements the merchant did not offer, are refused", async () => {
    const { decoded } = await signedPayment(customer);
    const requirements = requirementsOf(decoded);
    const verify = (payload: unknown, reqs: unknown, who = merchant) => facilitator("/verify", secret(who), { x402Version: 2, paymentPayload: payload, paymentRequirements: reqs });

    const cheaper = { ...decoded, accepted: { ...requirements, amount: "1" } };
    expect((await verify(cheaper, requirements)).body).toMatchObject({ isValid: false, invalidReason: "accepted_requirements_mismatch" });
    expect((await verify(cheaper, cheaper.accepted)).body).toMatchObject({ isValid: false, invalidReason: "invalid_amount" });
    const elsewhere = privateKeyToAccount(generatePrivateKey()).address;
    const redirected = { ...requirements, payTo: elsewhere };
    expect((await verify({ ...decoded, accepted: redirected }, redirected)).body).toMatchObject({ isValid: false, invalidReason: "pay_to_not_settlement_contract" });
    // Straight to the merchant's wallet would skip the fee: not an offer this facilitator settles.
    const direct = { ...requirements, payTo: merchantWallet };
    expect((await verify({ ...decoded, accepted: direct }, direct)).body).toMatchObject({ isValid: false, invalidReason: "pay_to_not_settlement_contract" });
    const otherAsset = { ...requirements, asset: chain.tokens.find((t) => t.symbol === "USDT")!.address };
    expect((await verify({ ...decoded, accepted: otherAsset }, otherAsset)).body).toMatchObject({ isValid: false });
    const unknownChain = { ...requirements, network: "eip155:1" };
    expect((await verify({ ...decoded, accepted: unknownChain }, unknownChain)).body).toMatchObject({ isValid: false, invalidReason: "invalid_network" });
    // The untouched payload verifies.
    expect((await verify(decoded, requirements)).body).toMatchObject({ isValid: true, payer: customer.address });
  }, 60_000);

  test("expired and not-yet-valid authorizations, and a payer without the money, are refused", async () => {
    const { decoded } = await signedPayment(customer);
    const requirements = requirementsOf(decoded);
    const authorization = (decoded.payload as { authorization: Record<string, string> }).authorization;
    const now = Math.floor(Date.now() / 1000);
    const withAuthorization = (changes: Record<string, string>) => ({ ...decoded, payload: { ...decoded.payload, authorization: { ...authorization, ...changes } } });
    const verify = (payload: unknown) => facilitator("/verify", secret(merchant), { x402Version: 2, paymentPayload: payload, paymentRequirements: requirements });
    expect((await verify(withAuthorization({ validBefore: String(now - 60) }))).body).toMatchObject({ isValid: false });
    expect((await verify(withAuthorization({ validAfter: String(now + 3600) }))).body).toMatchObject({ isValid: false });

    const broke = privateKeyToAccount(generatePrivateKey());
    const { decoded: unfunded } = await signedPayment(broke);
    expect((await verify(unfunded)).body).toMatchObject({ isValid: false, invalidReason: "insufficient_funds", payer: broke.address });
  }, 60_000);

  test("an agent's daily limit holds at verify and at settle, with 20 concurrent paid requests", async () => {
    const put = await api.request(`/api/v1/merchants/agent-policies/${budgetAgent.address}`, { method: "PUT", headers: secret(merchant), body: { dailyLimit: "0.05" } });
    expect(put.status).toBeLessThan(300);
    const before = await balanceOf(merchantWallet);
    const pay = payingFetch(budgetAgent);
    const statuses = await Promise.all(Array.from({ length: 20 }, () => pay(reportUrl()).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200).length).toBe(5);
    expect(statuses.filter((s) => s === 402).length).toBe(15);
    expect(await balanceOf(merchantWallet)).toBe(before + 5n * (PRICE - FEE));
    const agentPayments = (await listed()).filter((p) => p.agentId === budgetAgent.address && p.status !== "failed");
    expect(agentPayments.length).toBe(5);
    // Over the limit now: refused at verify too.
    const { decoded } = await signedPayment(budgetAgent);
    const verified = await facilitator("/verify", secret(merchant), { x402Version: 2, paymentPayload: decoded, paymentRequirements: requirementsOf(decoded) });
    expect(verified.body).toMatchObject({ isValid: false, invalidReason: "agent_policy_daily_limit" });
  }, 90_000);
});

describe("x402: agents without a policy, and X-Agent-Id", () => {
  test("deny-unknown refuses a payer without a policy at verify and settle; X-Agent-Id names the agent whose policy applies", async () => {
    const settings = (unknownAgents: "allow" | "deny") => api.request("/api/v1/merchants/agent-settings", { method: "PUT", headers: secret(merchant), body: { unknownAgents } });
    expect((await settings("deny")).status).toBe(200);
    try {
      const { decoded } = await signedPayment(customer);
      const body = { x402Version: 2, paymentPayload: decoded, paymentRequirements: requirementsOf(decoded) };
      expect((await facilitator("/verify", secret(merchant), body)).body).toMatchObject({ isValid: false, invalidReason: "agent_policy_no_policy" });
      expect((await facilitator("/settle", secret(merchant), body)).body).toMatchObject({ success: false, errorReason: "agent_policy_no_policy" });
      // The merchant's server names the agent: its policy applies, and the payment is recorded under it.
      expect((await api.request("/api/v1/merchants/agent-policies/report-bot", { method: "PUT", headers: secret(merchant), body: { maxPerPayment: "1" } })).status).toBeLessThan(300);
      const asBot = { ...secret(merchant), "x-agent-id": "report-bot" };
      expect((await facilitator("/verify", asBot, body)).body).toMatchObject({ isValid: true, payer: customer.address });
      const settled = await facilitator("/settle", asBot, body);
      expect(settled.body).toMatchObject({ success: true, payer: customer.address });
      const payment = (await listed()).find((p) => p.agentId === "report-bot");
      expect(payment).toMatchObject({ agentId: "report-bot", amount: "0.01" });
    } finally {
      await settings("allow");
    }
  }, 60_000);
});

describe("x402: strangers are refused on every route", () => {
  const routes = [
    ["/supported", undefined],
    ["/verify", { x402Version: 2, paymentPayload: {}, paymentRequirements: {} }],
    ["/settle", { x402Version: 2, paymentPayload: {}, paymentRequirements: {} }],
  ] as const;
  for (const [path, body] of routes) {
    test(`${path}: no key, the public key, a wrong secret: 401`, async () => {
      expect((await facilitator(path, {}, body)).status).toBe(401);
      expect((await facilitator(path, { "x-public-key": merchant.publicKey }, body)).status).toBe(401);
      expect((await facilitator(path, { "x-api-key": merchant.testApiKey, "x-api-secret": other.testApiSecret }, body)).status).toBe(401);
    });
  }

  test("a stranger holding a signed authorization cannot have the settlement contract pass it on (it would name itself merchant)", async () => {
    const { decoded } = await signedPayment(customer);
    const { authorization, signature } = decoded.payload as { authorization: Record<string, string>; signature: Hex };
    const auth = {
      token: usdc,
      from: getAddress(authorization.from!),
      value: BigInt(authorization.value!),
      validAfter: BigInt(authorization.validAfter!),
      validBefore: BigInt(authorization.validBefore!),
      nonce: authorization.nonce as Hex,
    };
    const stranger = privateKeyToAccount(generatePrivateKey());
    for (const received of [false, true]) {
      const attempt = await chain.publicClient
        .simulateContract({ account: stranger, address: chain.settlement, abi: paymentSettlementAbi, functionName: "settleAuthorization", args: [auth, signature, stranger.address, 0n, stranger.address, received] })
        .catch((e: unknown) => e);
      expect(revertOf(attempt)).toEqual({ name: "NotSettler", args: undefined });
    }
  });

  test("a settlement contract whose settler is not the operator: its network is left out of /supported and verify refuses, before the resource server does the work", async () => {
    const owner = (await chain.publicClient.readContract({ address: chain.settlement, abi: paymentSettlementAbi, functionName: "owner" })) as Address;
    const setSettler = async (to: Address) => {
      const hash = await chain.customerWallet.writeContract({ address: chain.settlement, abi: paymentSettlementAbi, functionName: "setSettler", args: [to], account: owner, chain: null });
      await chain.publicClient.waitForTransactionReceipt({ hash });
      forgetSettlerAnswers();
    };
    const { decoded } = await signedPayment(customer);
    const verify = () => facilitator("/verify", secret(merchant), { x402Version: 2, paymentPayload: decoded, paymentRequirements: requirementsOf(decoded) });
    await chain.rpc("anvil_impersonateAccount", [owner]);
    try {
      await setSettler(privateKeyToAccount(generatePrivateKey()).address);
      expect((await facilitator("/supported", secret(merchant))).body.kinds).toEqual([]);
      const refused = (await verify()).body;
      expect(refused).toMatchObject({ isValid: false, invalidReason: "facilitator_cannot_settle", payer: customer.address });
      expect(refused.invalidMessage).toContain("settler");
      // The operator's fix: the network is offered again, and the same payment verifies.
      await setSettler(privateKeyToAccount(operatorKey).address);
      expect((await facilitator("/supported", secret(merchant))).body.kinds).toEqual([{ x402Version: 2, scheme: "exact", network: NETWORK }]);
      expect((await verify()).body).toMatchObject({ isValid: true, payer: customer.address });
    } finally {
      await chain.rpc("anvil_stopImpersonatingAccount", [owner]);
    }
  }, 60_000);

  test("/supported names the exact scheme on the sandbox chain; bad bodies are a 400 naming the field", async () => {
    const supported = await facilitator("/supported", secret(merchant));
    expect(supported.status).toBe(200);
    expect(supported.body.kinds).toEqual([{ x402Version: 2, scheme: "exact", network: NETWORK }]);
    const bad = await facilitator("/verify", secret(merchant), { x402Version: 2, paymentPayload: { x402Version: 2, payload: {}, accepted: {} } });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("paymentRequirements");
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { encodeFunctionData, erc20Abi, type Address, type Hex } from "viem";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, type PaymentChain } from "../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * Issue 41, "what the public key reads and changes", tried as a stranger would: the public
 * key ships in every checkout bundle and payment ids sit in every checkout link, so both are
 * the attacker's. Real Postgres, Redis and anvil (payments are paid with real transfers), on
 * the service's default limits.
 */
let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let other: TestMerchant;
let usdc: Address;

beforeAll(async () => {
  chain = await startPaymentChain();
  usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  api = await createTestApi({ limits: "defaults", env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  [merchant, other] = await Promise.all([api.seedMerchant("Shop"), api.seedMerchant("Stranger's own shop")]);
  const anvil = api.config.networks.find((n) => n.shortName === "anvil")!;
  await Promise.all([setSettlementWallet(api.db, merchant.id, anvil.id, merchantWallet), setSettlementWallet(api.db, other.id, anvil.id, merchantWallet)]);
}, 60_000);
afterAll(async () => {
  await api?.close();
  await chain?.stop();
});

const pk = (m: TestMerchant = merchant) => ({ "x-public-key": m.publicKey });
const sk = (m: TestMerchant = merchant) => ({ "x-api-key": m.testApiKey, "x-api-secret": m.testApiSecret });
const create = (body: Record<string, unknown> = {}, headers: Record<string, string> = sk(), path = "/api/v1/payments/create") =>
  api.request(path, { headers, body: { amount: "10", currency: "USDC", network: "anvil", orderId: `order-${randomUUID()}`, ...body } });

async function transfer(to: Address, units: bigint): Promise<Hex> {
  const hash = await chain.customerWallet.sendTransaction({
    to: usdc,
    data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, units] }),
    account: customer,
    chain: null,
  });
  expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
  return hash;
}

describe("a public-key read shows no customer e-mail, metadata or callback URL", () => {
  const CANARY = "canary-7f3e";
  const privateFields = { customerEmail: `${CANARY}@example.com`, metadata: { note: `${CANARY}-metadata` }, callbackUrl: `https://${CANARY}.example/hook` };
  let payment: { id: string };
  let deposit: { id: string };

  beforeAll(async () => {
    // Created by the merchant's server (key + secret), as a checkout backend does.
    const created = await create(privateFields);
    expect(created.status).toBe(201);
    payment = created.body.payment;
    const createdDeposit = await create(privateFields, sk(), "/api/v1/deposits/create");
    expect(createdDeposit.status).toBe(201);
    deposit = createdDeposit.body.payment;
  });

  test("GET /payments/{id}: omitted with the public key, shown with key + secret", async () => {
    for (const path of [`/api/v1/payments/${payment.id}`, `/api/payments/${payment.id}`]) {
      const read = await api.request(path, { headers: pk() });
      expect(read.status).toBe(200);
      expect(read.body.payment.id).toBe(payment.id);
      for (const field of ["customerEmail", "metadata", "callbackUrl"]) expect(read.body.payment).not.toHaveProperty(field);
      expect(JSON.stringify(read.body)).not.toContain(CANARY);
    }
    const full = await api.request(`/api/v1/payments/${payment.id}`, { headers: sk() });
    expect(full.body.payment).toMatchObject(privateFields);
  });

  test("no other public-key or credential-free answer about the payment carries them either", async () => {
    const reads = [
      `/api/v1/payments/${payment.id}/status`,
      `/api/v1/payments/status/${payment.id}`,
      `/api/v1/payments/splitter-status/${payment.id}`,
      `/api/v1/deposits/status/${deposit.id}`,
      `/api/v1/deposits/balance/${deposit.id}`,
      "/api/v1/payments/merchant/list?limit=100",
      "/api/v1/payments/merchant/stats",
    ];
    for (const path of reads) {
      const read = await api.request(path, { headers: pk() });
      expect({ path, status: read.status }).toEqual({ path, status: 200 });
      expect(JSON.stringify(read.body)).not.toContain(CANARY);
    }
    const listed = await api.request("/api/v1/payments/merchant/list?limit=100", { headers: pk() });
    expect(listed.body.payments.map((p: { id: string }) => p.id)).toContain(payment.id);
    const verified = await api.request("/api/v1/payments/verify-qr", { headers: pk(), body: { paymentId: payment.id } });
    expect(JSON.stringify(verified.body)).not.toContain(CANARY);
    // The checkout page's view and the page itself: no credentials at all.
    const view = await api.request(`/api/v1/payments/public/${payment.id}`);
    expect(view.status).toBe(200);
    expect(JSON.stringify(view.body)).not.toContain(CANARY);
    const page = await api.app.handle(new Request(`http://localhost/pay/${payment.id}`));
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain(CANARY);
  });
});

describe("agent policies: the public key reads, never frees", () => {
  const policy = (agentId: string) => `/api/v1/merchants/agent-policies/${agentId}`;
  const agentCreate = (agentId: string, headers: Record<string, string> = pk()) => create({ amount: "3" }, { ...headers, "X-Agent-Id": agentId });
  const setUnknownAgents = (value: string, headers: Record<string, string> = sk()) => api.request("/api/v1/merchants/agent-settings", { method: "PUT", headers, body: { unknownAgents: value } });

  test("PUT with the public key: 401 (key + secret needed), the policy unchanged", async () => {
    expect((await api.request(policy("bot-put"), { method: "PUT", headers: sk(), body: { maxPerPayment: "1" } })).status).toBe(201);
    const lifted = await api.request(policy("bot-put"), { method: "PUT", headers: pk(), body: { maxPerPayment: null } });
    expect(lifted.status).toBe(401);
    expect(lifted.body).toMatchObject({ success: false, error: "API credentials required: send the x-api-key and x-api-secret headers" });
    expect((await api.request(policy("bot-put"), { headers: pk() })).body.policy).toMatchObject({ maxPerPayment: "1", active: true });
    expect((await agentCreate("bot-put")).body.code).toBe("AGENT_MAX_PER_PAYMENT");
  });

  test("unknownAgents: allow (default) — a public-key DELETE deactivates a limited agent (refused), it never frees it", async () => {
    expect((await api.request(policy("bot-limited"), { method: "PUT", headers: sk(), body: { maxPerPayment: "1" } })).status).toBe(201);
    const removed = await api.request(policy("bot-limited"), { method: "DELETE", headers: pk() });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ success: true, policy: { agentId: "bot-limited", active: false, maxPerPayment: "1" } });
    expect(removed.body.message).toContain("deactivated");
    const refused = await agentCreate("bot-limited");
    expect([refused.status, refused.body.code]).toEqual([403, "AGENT_INACTIVE"]);
    // Deleting it again changes nothing: still there, still inactive.
    expect((await api.request(policy("bot-limited"), { method: "DELETE", headers: pk() })).status).toBe(200);
    expect((await api.request(policy("bot-limited"), { headers: pk() })).body.policy).toMatchObject({ active: false });
    // Key + secret removes it: under allow the agent is then unlimited, the merchant's choice.
    expect((await api.request(policy("bot-limited"), { method: "DELETE", headers: sk() })).status).toBe(200);
    expect((await api.request(policy("bot-limited"), { headers: pk() })).body.policy).toBeNull();
    expect((await agentCreate("bot-limited")).status).toBe(201);
  });

  test("DELETE of an unknown agent: 404 with either credential (the spec)", async () => {
    for (const headers of [pk(), sk()]) {
      const response = await api.request(policy("nobody-here"), { method: "DELETE", headers });
      expect([response.status, response.body.error]).toEqual([404, "not_found"]);
    }
  });

  test("unknownAgents: deny — an agent without a policy is refused, and no DELETE frees one", async () => {
    const m = await api.seedMerchant("Strict shop");
    await setSettlementWallet(api.db, m.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
    // Only key + secret reads or changes the setting.
    expect((await setUnknownAgents("deny", pk(m))).status).toBe(401);
    expect((await setUnknownAgents("deny", {})).status).toBe(401);
    expect((await api.request("/api/v1/merchants/agent-settings", { headers: pk(m) })).status).toBe(401);
    const bad = await setUnknownAgents("maybe", sk(m));
    expect([bad.status, bad.body.error]).toEqual([400, "invalid_request"]);
    expect(bad.body.message).toContain("'unknownAgents'");
    expect((await setUnknownAgents("deny", sk(m))).body).toEqual({ success: true, mode: "test", unknownAgents: "deny" });
    expect((await api.request("/api/v1/merchants/agent-settings", { headers: sk(m) })).body).toEqual({ success: true, mode: "test", unknownAgents: "deny" });

    const unknown = await agentCreate("stranger-bot", pk(m));
    expect(unknown.status).toBe(403);
    expect(unknown.body).toMatchObject({ success: false, error: "forbidden", code: "AGENT_NO_POLICY" });
    expect((await api.request(policy("stranger-bot"), { headers: pk(m) })).body).toMatchObject({ policy: null, message: expect.stringContaining("refused") });
    // Payments without an agent are not affected.
    expect((await create({}, pk(m))).status).toBe(201);

    const path = policy("known-bot");
    expect((await api.request(path, { method: "PUT", headers: sk(m), body: { maxPerPayment: "50" } })).status).toBe(201);
    expect((await agentCreate("known-bot", pk(m))).status).toBe(201);
    // The public key's DELETE leaves it refused …
    expect((await api.request(path, { method: "DELETE", headers: pk(m) })).status).toBe(200);
    expect((await agentCreate("known-bot", pk(m))).body.code).toBe("AGENT_INACTIVE");
    // … and so does key + secret's (no policy under deny: refused).
    expect((await api.request(path, { method: "DELETE", headers: sk(m) })).status).toBe(200);
    expect((await agentCreate("known-bot", pk(m))).body.code).toBe("AGENT_NO_POLICY");
    // Per mode: the live mode still allows unknown agents.
    expect((await api.request("/api/v1/merchants/agent-settings", { headers: { "x-api-key": m.apiKey, "x-api-secret": m.apiSecret } })).body.unknownAgents).toBe("allow");
  });
});

describe("POST /payments/fail: the public key closes only a payment holding nothing", () => {
  const fail = (paymentId: string, headers: Record<string, string>) => api.request("/api/v1/payments/fail", { headers, body: { paymentId, status: "cancelled" } });

  test("a payment with nothing received: the public key may cancel it", async () => {
    const p = (await create()).body.payment;
    const closed = await fail(p.id, pk());
    expect(closed.status).toBe(200);
    expect(closed.body.payment).toMatchObject({ status: "cancelled", amountReceived: "0" });
  });

  test("a payment holding money (credited): 403 naming key + secret, still pending; key + secret closes it", async () => {
    const p = (await create({ amount: "10" })).body.payment;
    const hash = await transfer(p.receiveAddress, 4_000_000n);
    expect((await api.request("/api/v1/payments/process", { headers: pk(), body: { paymentId: p.id, txHash: hash } })).body.payment.amountReceived).toBe("4");
    const refused = await fail(p.id, pk());
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ success: false, error: "forbidden" });
    expect(refused.body.message).toBe(`Payment ${p.id} has received 4 USDC: closing a payment that holds money takes the API key and secret (X-API-Key, X-API-Secret).`);
    expect((await api.request(`/api/v1/payments/${p.id}/status`, { headers: pk() })).body.payment.status).toBe("pending");
    const closed = await fail(p.id, sk());
    expect(closed.status).toBe(200);
    expect(closed.body.payment).toMatchObject({ status: "cancelled", amountReceived: "4" });
  });

  test("money at the address not credited yet (no indexer here): refused too, read from the chain", async () => {
    const p = (await create({ amount: "10" }, sk(), "/api/v1/deposits/create")).body.payment;
    await transfer(p.depositAddress, 1_000_000n);
    const refused = await fail(p.id, pk());
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain("has 1 USDC at its address, not yet credited");
    expect((await fail(p.id, sk())).status).toBe(200);
  });
});

describe("another merchant's key on a deposit: nothing of the payment", () => {
  test("/deposits/status, /deposits/balance and /deposits/refund-request answer as for an unknown id", async () => {
    const d = (await create({ amount: "5" }, sk(), "/api/v1/deposits/create")).body.payment;
    await transfer(d.depositAddress, 6_000_000n);
    const stranger = [pk(other), sk(other), { "x-public-key": other.livePublicKey }];
    for (const headers of stranger) {
      const status = await api.request(`/api/v1/deposits/status/${d.id}`, { headers });
      // The spec fixes 500 for a status read of an id that does not exist (for this account).
      expect([status.status, status.body.error]).toEqual([500, "payment_not_found"]);
      const balance = await api.request(`/api/v1/deposits/balance/${d.id}`, { headers });
      expect([balance.status, balance.body.error]).toEqual([404, "not_found"]);
      const refund = await api.request(`/api/v1/deposits/refund-request/${d.id}`, { headers, body: { address: "0x000000000000000000000000000000000000dEaD" } });
      expect([refund.status, refund.body.error]).toEqual([404, "not_found"]);
      for (const answer of [status, balance, refund]) {
        expect(JSON.stringify(answer.body)).not.toContain(d.depositAddress);
        expect(JSON.stringify(answer.body)).not.toContain('"6"');
      }
    }
    // Without credentials: 401.
    expect((await api.request(`/api/v1/deposits/balance/${d.id}`)).status).toBe(401);
    expect((await api.request(`/api/v1/deposits/refund-request/${d.id}`, { body: { address: "0x000000000000000000000000000000000000dEaD" } })).status).toBe(401);
    // The owner still reads it.
    expect((await api.request(`/api/v1/deposits/balance/${d.id}`, { headers: pk() })).body.balanceRaw).toBe("6000000");
  });
});

describe("PUBLIC_KEY_ACCOUNT_READS=off: the deprecated public-key list and stats answer 401", () => {
  let strict: TestApi;
  let m: TestMerchant;
  beforeAll(async () => {
    strict = await createTestApi({ limits: "defaults", env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey, PUBLIC_KEY_ACCOUNT_READS: "off" } });
    m = await strict.seedMerchant("No public-key account reads");
  }, 60_000);
  afterAll(async () => {
    await strict?.close();
  });

  test("list and stats: 401 with the spec's error text for a public key; key + secret still read (also sent beside a public key)", async () => {
    for (const path of ["/api/v1/payments/merchant/list", "/api/v1/payments/merchant/stats", "/api/payments/merchant/list"]) {
      const refused = await strict.request(path, { headers: { "x-public-key": m.publicKey } });
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({
        success: false,
        error: "API credentials required: send the x-api-key and x-api-secret headers",
        message: "This account-wide route authenticates with an API key and secret.",
      });
      expect(refused.headers.get("Deprecation")).toBeNull();
      const secret = { "x-api-key": m.apiKey, "x-api-secret": m.apiSecret };
      expect((await strict.request(path, { headers: secret })).status).toBe(200);
      const both = await strict.request(path, { headers: { ...secret, "x-public-key": m.publicKey } });
      expect(both.status).toBe(200);
      expect(both.headers.get("Deprecation")).toBeNull();
    }
    // Other public-key routes are unchanged.
    expect((await strict.request("/api/v1/networks", { headers: { "x-public-key": m.publicKey } })).status).toBe(200);
  });

  test("on by default (the spec's rule 4): the public key still reads, with Deprecation: true", async () => {
    const read = await api.request("/api/v1/payments/merchant/stats", { headers: pk() });
    expect(read.status).toBe(200);
    expect(read.headers.get("Deprecation")).toBe("true");
  });
});

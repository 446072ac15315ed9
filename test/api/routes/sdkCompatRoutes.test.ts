import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setSettlementWallet } from "../../../db/settlementWallets.ts";
import { explorerAddressUrl } from "../../../domain/explorerAddressUrl.ts";
import { JSON_METADATA_LIMITS } from "../../../api/requests/paymentFields.ts";
import { operatorKey } from "../../../harness/paymentChain.ts";
import { ANVIL_USDC, anvilNetwork } from "../../../harness/fixtures.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../../harness/testApi.ts";

/**
 * What the client SDK's calls added beside the spec's routes, tried as a stranger and with
 * bad input: `/deposits/supported-chains`, hex chain ids and `contractInfo` on
 * `/payments/contract/{chainId}`, `existingPaymentId`, JSON metadata and its bounds, the
 * process body's new names. No chain is needed: creation signs offline.
 */
const SETTLEMENT = "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0";
const FACTORY = "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9";
const WALLET = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
let api: TestApi;
let merchant: TestMerchant;
let other: TestMerchant;

beforeAll(async () => {
  api = await createTestApi({
    env: { OPERATOR_PRIVATE_KEY: operatorKey },
    networks: [anvilNetwork("http://127.0.0.1:1", { settlementContract: SETTLEMENT, forwarderFactory: FACTORY, explorerUrl: "https://scan.example/" })],
  });
  [merchant, other] = await Promise.all([api.seedMerchant("A"), api.seedMerchant("B")]);
  const network = api.config.networks.find((n) => n.shortName === "anvil")!;
  await Promise.all([setSettlementWallet(api.db, merchant.id, network.id, WALLET), setSettlementWallet(api.db, other.id, network.id, WALLET)]);
});

afterAll(async () => {
  await api?.close();
});

const pk = (m: TestMerchant = merchant) => ({ "x-public-key": m.publicKey });
const create = (path: string, body: Record<string, unknown>, m: TestMerchant = merchant) =>
  api.request(path, { headers: pk(m), body: { amount: "5", currency: "USDC", network: "anvil", orderId: crypto.randomUUID(), ...body } });

test("CORS: a browser's preflight for a GET carrying the SDK's Content-Type and public key is let through", async () => {
  const response = await api.request("/api/networks", {
    method: "OPTIONS",
    headers: { Origin: "https://shop.example", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "content-type,x-public-key" },
  });
  expect(response.status).toBe(204);
  expect(response.headers.get("access-control-allow-origin")).toBe("*");
  expect(response.headers.get("access-control-allow-methods")).toContain("GET");
  expect(response.headers.get("access-control-allow-headers")?.toLowerCase().split(", ")).toEqual(expect.arrayContaining(["content-type", "x-public-key"]));
});

describe("GET /deposits/supported-chains", () => {
  test("needs no credentials and tells a stranger only the catalogue", async () => {
    for (const headers of [{}, { "x-public-key": "pk_test_garbage" }] as Record<string, string>[]) {
      const response = await api.request("/api/deposits/supported-chains", { headers });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ success: true, chains: [{ chainId: 31337, name: "Anvil", shortName: "anvil", confirmations: 3 }] });
    }
  });
});

describe("GET /payments/contract/{chainId}", () => {
  test("decimal and 0x-hex name the same chain; the answer keeps its fields and adds contractInfo", async () => {
    const decimal = await api.request("/api/v1/payments/contract/31337");
    for (const hex of ["0x7a69", "0x7A69", "0x0000007a69"]) expect((await api.request(`/api/v1/payments/contract/${hex}`)).body).toEqual(decimal.body);
    expect(decimal.body).toMatchObject({ success: true, chainId: "31337", network: "anvil", contractAddress: SETTLEMENT });
    expect(decimal.body.contractInfo).toEqual({ address: SETTLEMENT, abi: decimal.body.abi, chainId: "31337", network: "anvil" });
  });

  test("what a stranger might send instead: 404, never a 500", async () => {
    for (const chainId of ["0x", "0x1", "0xzz", `0x${"f".repeat(17)}`, "0xffffffffffffffff", "-1", "31337.0", "%00"]) {
      const response = await api.request(`/api/v1/payments/contract/${chainId}`);
      expect({ chainId, status: response.status }).toEqual({ chainId, status: 404 });
    }
  });
});

describe("JSON metadata", () => {
  test("objects, arrays, numbers, booleans and null are kept as given, on payments and deposits", async () => {
    const metadata = { cart: 42, gift: true, note: null, items: [{ sku: "A", qty: 2 }], merchantWalletAddresses: { anvil: WALLET } };
    for (const path of ["/api/payments/create", "/api/deposits/create"]) {
      const response = await create(path, { metadata });
      expect(response.status).toBe(201);
      expect(response.body.payment.metadata).toEqual(metadata);
    }
  });

  test.each<[string, unknown]>([
    ["larger than 16 KiB", { blob: "x".repeat(JSON_METADATA_LIMITS.maxBytes) }],
    ["51 keys", Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]))],
    ["a key of 101 characters", { ["k".repeat(101)]: 1 }],
    ["6 levels deep", { a: [{ b: { c: { d: { e: 1 } } } }] }],
    ["an array", [1, 2]],
    ["a string", "cart=42"],
  ])("%s: 400 naming metadata", async (_name, metadata) => {
    const response = await create("/api/payments/create", { metadata });
    expect(response.status).toBe(400);
    expect(response.body.message).toContain("'metadata");
  });

  test("cross-chain creation keeps the spec's map of strings", async () => {
    const response = await api.request("/api/v1/payments/cross-chain/create", { headers: pk(), body: { amount: 5, originChainId: 1, originCurrency: "USDC", metadata: { cart: 42 } } });
    expect(response.status).toBe(400);
    expect(response.body.message).toContain("metadata.cart");
  });
});

describe("existingPaymentId on /deposits/create", () => {
  test("another merchant's payment is refused as if it did not exist, and nothing is created", async () => {
    const theirs = (await create("/api/payments/create", {}, other)).body.payment;
    const before = (await api.request("/api/payments/merchant/list?limit=100", { headers: pk() })).body.payments.length;
    const response = await create("/api/deposits/create", { existingPaymentId: theirs.id });
    expect(response.status).toBe(400);
    expect(response.body.message).toContain("'existingPaymentId'");
    // The same answer as for an id no one has: nothing tells the stranger it exists.
    const unknown = await create("/api/deposits/create", { existingPaymentId: theirs.id.replace(/^.{8}/, "00000000") });
    expect(response.body.message.replace(theirs.id, "ID")).toBe(unknown.body.message.replace(theirs.id.replace(/^.{8}/, "00000000"), "ID"));
    expect((await api.request("/api/payments/merchant/list?limit=100", { headers: pk() })).body.payments.length).toBe(before);
  });

  test("its own: the deposit is created, with requiredConfirmations and the explorer's address page", async () => {
    const own = (await create("/api/payments/create", {})).body.payment;
    const response = await create("/api/deposits/create", { existingPaymentId: own.id });
    expect(response.status).toBe(201);
    expect(response.body.payment).toMatchObject({ requiredConfirmations: 3, explorer: { address: `https://scan.example/address/${response.body.payment.depositAddress}` } });
  });
});

describe("POST /payments/process: the SDK's names", () => {
  test("txHash and transactionHash that differ: 400; neither: 400 naming txHash", async () => {
    const payment = (await create("/api/payments/create", {})).body.payment;
    const a = `0x${"ab".repeat(32)}`;
    const b = `0x${"cd".repeat(32)}`;
    const both = await api.request("/api/payments/process", { headers: pk(), body: { paymentId: payment.id, txHash: a, transactionHash: b } });
    expect(both.status).toBe(400);
    expect(both.body.message).toContain("'transactionHash'");
    const neither = await api.request("/api/payments/process", { headers: pk(), body: { paymentId: payment.id, network: "anvil" } });
    expect(neither.status).toBe(400);
    expect(neither.body.message).toContain("'txHash'");
  });

  test("another merchant's payment: 404, whatever the body names", async () => {
    const theirs = (await create("/api/payments/create", {}, other)).body.payment;
    const response = await api.request("/api/payments/process", { headers: pk(), body: { paymentId: theirs.id, transactionHash: `0x${"ab".repeat(32)}`, network: "anvil", senderAddress: WALLET } });
    expect(response.status).toBe(404);
  });
});

describe("the payment view carries what the SDK pays with", () => {
  test("contractCall and the split: the merchant's share all of it without a fee", async () => {
    const payment = (await create("/api/payments/create", { amount: "1.5" })).body.payment;
    expect(payment).toMatchObject({ totalAmount: "1.5", merchantWallet: WALLET, recipientWallet: WALLET, merchantPercentage: 10_000, coinleyPercentage: 0, coinleyWallet: WALLET });
    expect(payment.contractCall).toMatchObject({ contractAddress: SETTLEMENT, tokenAddress: ANVIL_USDC, approvalAmount: "1500000" });
    expect(payment.contractCall.params).toMatchObject({ amount: "1500000", paymentId: payment.id, recipient1: WALLET, recipient2: WALLET, recipient1Percentage: 10_000, recipient2Percentage: 0, recipient3Percentage: 0 });
  });

  test("a deposit has no contract call", async () => {
    const deposit = (await create("/api/deposits/create", {})).body.payment;
    const full = await api.request(`/api/payments/${deposit.id}`, { headers: pk() });
    expect(full.body.payment.contractCall).toBeUndefined();
  });
});

test("explorerAddressUrl: the address page under the explorer's home, its query kept", () => {
  expect(explorerAddressUrl("https://basescan.org", "0xabc")).toBe("https://basescan.org/address/0xabc");
  expect(explorerAddressUrl("https://scan.example/", "0xabc")).toBe("https://scan.example/address/0xabc");
  expect(explorerAddressUrl("https://explorer.solana.com/?cluster=devnet", "Abc")).toBe("https://explorer.solana.com/address/Abc?cluster=devnet");
  expect(explorerAddressUrl(null, "0xabc")).toBeNull();
  expect(explorerAddressUrl("not a url", "0xabc")).toBeNull();
});

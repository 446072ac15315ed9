import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ExactEvmScheme as ExactEvmClientScheme, toClientEvmSigner } from "@x402/evm";
import { x402Client } from "@x402/core/client";
import type { PaymentRequirements } from "@x402/core/types";
import { generatePaymentId } from "@x402/extensions/payment-identifier";
import { createWalletClient, erc20Abi, http, parseSignature, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { anvilAccounts, localChain, testStablecoinAbi } from "@stablepay/devchain/evm";
import { createLogger } from "../../config/logger.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { eq } from "drizzle-orm";
import { x402Settlements } from "../../db/schema/index.ts";
import { findX402Settlement, x402GasSpentSince } from "../../db/x402Settlements.ts";
import { recheck } from "../../jobs/recheck.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { untilValue } from "../../harness/until.ts";

/**
 * x402's known traps on the settle side: a settle whose transaction is broadcast but not mined
 * answers `settlement_pending` with its hash (never a failure: the agent must not pay twice),
 * and completes once the chain mines it; the `payment-identifier` extension makes a retried
 * settle the same settle, and refuses the identifier for another authorization; the operator's
 * gas is capped per merchant and day; an authorization a stranger takes from the settlement's
 * transaction and submits to the token first is passed on from the settlement contract.
 */
const NETWORK = "eip155:31337" as const;
const PRICE = 25_000n;

let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let usdc: Address;

const secret = () => ({ "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret });

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 1 });
  usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  // A short wait for the API and for the worker's receipt: a chain that mines nothing answers pending quickly.
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey, X402_SETTLE_WAIT_MS: "3000", X402_CONFIRMATION_TIMEOUT_MS: "500" } });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  workers = await startWorkers({ config: api.config, db: api.db, logger: createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" }), databaseUrl: api.databaseUrl });
}, 120_000);

afterAll(async () => {
  await chain?.rpc("evm_setAutomine", [true]).catch(() => undefined);
  await workers?.close();
  await indexer?.stop();
  await api?.close();
  await chain?.stop();
});

const requirements: () => PaymentRequirements = () => ({
  scheme: "exact",
  network: NETWORK,
  asset: usdc,
  amount: PRICE.toString(),
  payTo: chain.settlement,
  maxTimeoutSeconds: 300,
  extra: { name: "USD Coin", version: "2" },
});

/** A payload signed by the official client for the requirements, with a payment identifier when given. */
async function signed(paymentId?: string) {
  const client = x402Client.fromConfig({
    schemes: [{ network: NETWORK, client: new ExactEvmClientScheme(toClientEvmSigner(customer, chain.publicClient as never)) }],
    spendControls: { allowedAssets: [{ network: NETWORK, asset: usdc }] },
  });
  const payload = await client.createPaymentPayload({ x402Version: 2, resource: { url: "http://shop.test/report" }, accepts: [requirements()] });
  return paymentId ? { ...payload, extensions: { "payment-identifier": { info: { required: false, id: paymentId } } } } : payload;
}

const settle = (payload: unknown) => api.request("/api/v1/x402/settle", { headers: secret(), body: { x402Version: 2, paymentPayload: payload, paymentRequirements: requirements() } });
const balanceOf = (owner: Address) => chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [owner] });

describe("x402 settle: a slow chain, the payment identifier, the gas cap", () => {
  test("broadcast but not mined: pending with the transaction, never a failure; mined: the same settle succeeds and the payment completes", async () => {
    const payload = await signed();
    const before = await balanceOf(merchantWallet);
    await chain.rpc("evm_setAutomine", [false]);
    const pending = await settle(payload);
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ success: false, errorReason: "settlement_pending", payer: customer.address, network: NETWORK });
    expect(pending.body.transaction).toMatch(/^0x[0-9a-f]{64}$/);

    await chain.rpc("evm_setAutomine", [true]);
    await chain.mine(1);
    const settled = await untilValue("the settle answered success", () => settle(payload), (r) => r.body.success === true);
    expect(settled.body).toMatchObject({ success: true, transaction: pending.body.transaction, payer: customer.address });
    expect(await balanceOf(merchantWallet)).toBe(before + PRICE);
    const list = await untilValue(
      "the x402 payment completed",
      async () => (await api.request("/api/v1/payments/merchant/list", { headers: { "x-public-key": merchant.publicKey } })).body.payments as Array<{ status: string; agentId: string }>,
      (payments) => payments.some((p) => p.status === "completed"),
    );
    expect(list.filter((p) => p.agentId === customer.address).length).toBe(1);
  }, 60_000);

  test("front-run: a stranger submits the authorization to the token before the settlement; the contract passes on what it received", async () => {
    const payload = await signed();
    const before = await balanceOf(merchantWallet);
    await chain.rpc("evm_setAutomine", [false]);
    const pending = await settle(payload);
    expect(pending.body).toMatchObject({ success: false, errorReason: "settlement_pending" });
    // The stranger copies the authorization out of the pending settlement and outbids it.
    const { authorization, signature } = payload.payload as { authorization: Record<string, string>; signature: Hex };
    const { v, r, s } = parseSignature(signature);
    const stranger = createWalletClient({ account: privateKeyToAccount(anvilAccounts[8] as Hex), chain: localChain(31337, chain.anvil.rpcUrl), transport: http(chain.anvil.rpcUrl) });
    const frontRun = await stranger.writeContract({
      address: usdc,
      abi: testStablecoinAbi,
      functionName: "transferWithAuthorization",
      args: [authorization.from as Address, authorization.to as Address, BigInt(authorization.value!), BigInt(authorization.validAfter!), BigInt(authorization.validBefore!), authorization.nonce as Hex, Number(v), r, s],
      maxPriorityFeePerGas: 100_000_000_000n,
      maxFeePerGas: 200_000_000_000n,
      gas: 200_000n,
    });
    await chain.mine(1);
    await chain.rpc("evm_setAutomine", [true]);
    expect((await chain.publicClient.getTransactionReceipt({ hash: frontRun })).status).toBe("success");
    expect((await chain.publicClient.getTransactionReceipt({ hash: pending.body.transaction })).status).toBe("reverted");

    const settled = await untilValue("the settle answered success", () => settle(payload), (r) => r.body.success === true);
    expect(settled.body.transaction).not.toBe(pending.body.transaction);
    expect(await balanceOf(merchantWallet)).toBe(before + PRICE);
    expect(await balanceOf(chain.settlement)).toBe(0n);
    // Both transactions' gas counts against the merchant's cap.
    const row = (await api.db.select().from(x402Settlements).where(eq(x402Settlements.txHash, settled.body.transaction)))[0]!;
    const gasOf = async (hash: Hex) => {
      const receipt = await chain.publicClient.getTransactionReceipt({ hash });
      return receipt.gasUsed * receipt.effectiveGasPrice;
    };
    expect(row.gasCost).toBe((await gasOf(pending.body.transaction)) + (await gasOf(settled.body.transaction)));
  }, 60_000);

  test("the same payment identifier is the same settle; for another authorization it is refused", async () => {
    const id = generatePaymentId();
    const payload = await signed(id);
    const first = await settle(payload);
    expect(first.body).toMatchObject({ success: true, payer: customer.address });
    // A retry of the same payment (same identifier, same authorization) verifies (the resource
    // server may answer it) and its settle answers the same settlement.
    const verify = (p: unknown) => api.request("/api/v1/x402/verify", { headers: secret(), body: { x402Version: 2, paymentPayload: p, paymentRequirements: requirements() } });
    expect((await verify(payload)).body).toMatchObject({ isValid: true, payer: customer.address });
    expect((await settle(payload)).body).toEqual(first.body);
    // Without its identifier, the same authorization is a replay.
    const { extensions: _, ...bare } = payload as typeof payload & { extensions?: unknown };
    expect((await verify(bare)).body).toMatchObject({ isValid: false, invalidReason: "invalid_exact_evm_payload_authorization_nonce_used" });
    // The identifier names that payment only: another authorization under it is refused, and pays nothing.
    const before = await balanceOf(merchantWallet);
    const reused = await settle(await signed(id));
    expect(reused.body).toMatchObject({ success: false, errorReason: "payment_identifier_conflict" });
    expect(await balanceOf(merchantWallet)).toBe(before);
  }, 60_000);

  test("the operator's gas is capped per merchant and day: past the cap, settles are refused before anything is sent", async () => {
    // The merchant's settlements above cost gas today; an API with a 1 wei cap (same database) refuses the next one.
    expect(await x402GasSpentSince(api.db, merchant.id, "31337", new Date(Date.now() - 3_600_000))).toBeGreaterThan(0n);
    const capped = await createTestApi({ database: { url: api.databaseUrl, name: "", drop: async () => {} }, env: { NETWORKS_FILE: chain.networksFile, X402_DAILY_GAS_CAP_WEI: "1" } });
    try {
      const before = await balanceOf(merchantWallet);
      const refused = await capped.request("/api/v1/x402/settle", { headers: secret(), body: { x402Version: 2, paymentPayload: await signed(), paymentRequirements: requirements() } });
      expect(refused.body).toMatchObject({ success: false, errorReason: "gas_cap_reached", payer: customer.address });
      expect(await balanceOf(merchantWallet)).toBe(before);
    } finally {
      await capped.close();
    }
  }, 60_000);

  test("a settlement whose prompt was lost is settled by the recheck", async () => {
    // An API whose prompts reach no worker (a Redis prefix of its own): its settle answers pending, the row stays requested.
    const stranded = await createTestApi({ database: { url: api.databaseUrl, name: "", drop: async () => {} }, env: { NETWORKS_FILE: chain.networksFile, X402_SETTLE_WAIT_MS: "200" } });
    let settlementId: string;
    try {
      const pending = await stranded.request("/api/v1/x402/settle", { headers: secret(), body: { x402Version: 2, paymentPayload: await signed(), paymentRequirements: requirements() } });
      expect(pending.body).toMatchObject({ success: false, errorReason: "settlement_pending", transaction: "" });
      const [row] = await api.db.select().from(x402Settlements).where(eq(x402Settlements.status, "requested"));
      settlementId = row!.id;
    } finally {
      await stranded.close();
    }
    // Asked for a while ago: the worker's recheck gives the prompt again.
    await api.db.update(x402Settlements).set({ createdAt: new Date(Date.now() - 120_000) }).where(eq(x402Settlements.id, settlementId));
    const result = await recheck({ config: api.config, db: api.db, logger: createLogger({ level: "silent" }), databaseUrl: api.databaseUrl }, workers.prompts)({ id: "recheck-test", data: {} } as never);
    expect(result.x402).toBe(1);
    const settled = await untilValue("the stranded settlement settled", () => findX402Settlement(api.db, settlementId), (r) => r?.status === "settled");
    expect(settled!.txHash).toMatch(/^0x[0-9a-f]{64}$/);
  }, 60_000);
});

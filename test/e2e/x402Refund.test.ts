import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ExactEvmScheme as ExactEvmClientScheme, toClientEvmSigner } from "@x402/evm";
import { x402Client } from "@x402/core/client";
import type { PaymentRequirements } from "@x402/core/types";
import { createWalletClient, erc20Abi, http, parseSignature, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { anvilAccounts, localChain, testStablecoinAbi } from "@stablepay/devchain/evm";
import { createLogger } from "../../config/logger.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { findTransferOut } from "../../db/transfersOut.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { untilValue } from "../../harness/until.ts";

/**
 * An x402 payment is refunded although the service never held its money (it went to the
 * merchant's wallet in the settlement): the merchant's wallet signs an EIP-3009 transfer back,
 * the operator relays it and pays the gas, and the refund is the payment's like any other
 * (`payment.refunded`, the refund request recorded as sent). Strangers, the public key, a
 * signature by anyone but the wallet, a tampered destination, an amount above what was paid,
 * an expired or replayed authorization: each moves nothing.
 */
const NETWORK = "eip155:31337" as const;
const PRICE = 40_000n;
const merchantSigner = privateKeyToAccount(anvilAccounts[2] as Hex);

let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let usdc: Address;
let paymentId: string;

const secret = () => ({ "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret });
const balanceOf = (owner: Address) => chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [owner] });

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 1 });
  usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey, REFUND_MIN_AMOUNT: "0.01" } });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  workers = await startWorkers({ config: api.config, db: api.db, logger: createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" }), databaseUrl: api.databaseUrl });

  // The agent pays with the official client; the facilitator settles it into the merchant's wallet.
  const requirements: PaymentRequirements = { scheme: "exact", network: NETWORK, asset: usdc, amount: PRICE.toString(), payTo: chain.settlement, maxTimeoutSeconds: 300, extra: { name: "USD Coin", version: "2" } };
  const client = x402Client.fromConfig({ schemes: [{ network: NETWORK, client: new ExactEvmClientScheme(toClientEvmSigner(customer, chain.publicClient as never)) }], spendControls: { allowedAssets: [{ network: NETWORK, asset: usdc }] } });
  const payload = await client.createPaymentPayload({ x402Version: 2, resource: { url: "http://shop.test/report" }, accepts: [requirements] });
  const settled = await api.request("/api/v1/x402/settle", { headers: secret(), body: { x402Version: 2, paymentPayload: payload, paymentRequirements: requirements } });
  expect(settled.body).toMatchObject({ success: true, payer: customer.address });
  const list = await untilValue(
    "the x402 payment completed",
    async () => (await api.request("/api/v1/payments/merchant/list", { headers: { "x-public-key": merchant.publicKey } })).body.payments as Array<{ id: string; status: string }>,
    (payments) => payments.some((p) => p.status === "completed"),
  );
  paymentId = list.find((p) => p.status === "completed")!.id;
}, 180_000);

afterAll(async () => {
  await chain?.rpc("evm_setAutomine", [true]).catch(() => undefined);
  await workers?.close();
  await indexer?.stop();
  await api?.close();
  await chain?.stop();
});

const prepare = (body: Record<string, unknown>, headers: Record<string, string> = secret()) => api.request(`/api/v1/payments/${paymentId}/signed-refunds/prepare`, { headers, body });
const handIn = (body: Record<string, unknown>, headers: Record<string, string> = secret()) => api.request(`/api/v1/payments/${paymentId}/signed-refunds`, { headers, body });

type Prepared = { from: string; to: string; amount: string; validUntil: string; format: string; typedData: { domain: Record<string, unknown>; types: Record<string, Array<{ name: string; type: string }>>; primaryType: string; message: Record<string, string> } };

/** Signs prepared typed data as a wallet's `eth_signTypedData_v4` would. */
async function sign(prepared: Prepared, signer = merchantSigner, message = prepared.typedData.message) {
  const { EIP712Domain: _, ...types } = prepared.typedData.types;
  const typed = {
    domain: prepared.typedData.domain,
    types,
    primaryType: prepared.typedData.primaryType,
    message: { ...message, value: BigInt(message.value!), validAfter: BigInt(message.validAfter!), validBefore: BigInt(message.validBefore!) },
  };
  return signer.signTypedData(typed as Parameters<typeof signer.signTypedData>[0]);
}

describe("x402 refunds: the merchant's wallet signs, the operator relays", () => {
  test("strangers and the public key are refused; the deposit path says the service does not hold it", async () => {
    for (const headers of [{}, { "x-public-key": merchant.publicKey }] as Array<Record<string, string>>) {
      expect((await prepare({}, headers)).status).toBe(401);
      expect((await handIn({ authorization: {}, signature: "0x00" }, headers)).status).toBe(401);
    }
    const deposit = await api.request(`/api/v1/deposits/refund-request/${paymentId}`, { headers: { "x-public-key": merchant.publicKey }, body: {} });
    expect([deposit.status, deposit.body.error]).toEqual([409, "refund_not_held"]);
  });

  test("what is prepared: typed data from the merchant's wallet back to the payer, for what was paid", async () => {
    const r = await prepare({});
    expect(r.status).toBe(200);
    const prepared = r.body.signedRefund as Prepared;
    expect(prepared).toMatchObject({ format: "eip712", from: merchantWallet, to: customer.address, amount: "0.04", token: "USDC", chainId: "31337" });
    expect(prepared.typedData.domain).toMatchObject({ name: "USD Coin", version: "2", chainId: 31337, verifyingContract: usdc });
    expect(prepared.typedData.message).toMatchObject({ from: merchantWallet, to: customer.address, value: PRICE.toString(), validAfter: "0" });
    expect((await prepare({ amount: "1" })).body).toMatchObject({ error: "nothing_to_refund" });
    expect((await prepare({ address: "not an address" })).body).toMatchObject({ error: "invalid_request" });
  });

  test("a signature by anyone but the wallet, a tampered destination or amount, an expired authorization: refused, nothing recorded", async () => {
    const prepared = (await prepare({ amount: "0.01" })).body.signedRefund as Prepared;
    const message = prepared.typedData.message;
    const byCustomer = await handIn({ authorization: message, signature: await sign(prepared, customer) });
    expect([byCustomer.status, byCustomer.body.error]).toEqual([403, "refund_signature_invalid"]);
    const signature = await sign(prepared);
    const stranger = privateKeyToAccount(anvilAccounts[8] as Hex).address;
    const tampered = await handIn({ authorization: { ...message, to: stranger }, signature });
    expect([tampered.status, tampered.body.error]).toEqual([403, "refund_signature_invalid"]);
    const more = await handIn({ authorization: { ...message, value: "39999" }, signature });
    expect(more.status).toBe(403);
    const notFrom = await handIn({ authorization: { ...message, from: stranger }, signature });
    expect([notFrom.status, notFrom.body.message]).toEqual([400, expect.stringContaining("authorization.from")]);
    const expiring = { ...message, validBefore: String(Math.floor(Date.now() / 1000) + 30) };
    const expired = await handIn({ authorization: expiring, signature: await sign(prepared, merchantSigner, expiring) });
    expect([expired.status, expired.body.message]).toEqual([400, expect.stringContaining("authorization.validBefore")]);
    // Signed by the wallet, but for more than the payment received.
    const over = { ...message, value: (PRICE + 1n).toString() };
    const tooMuch = await handIn({ authorization: over, signature: await sign(prepared, merchantSigner, over) });
    expect([tooMuch.status, tooMuch.body.error]).toEqual([409, "nothing_to_refund"]);
    const requests = await api.request(`/api/v1/payments/${paymentId}/refund-requests`, { method: "GET", headers: secret() });
    expect(requests.body.refundRequests).toEqual([]);
  });

  test("signed by the wallet: relayed by the operator, the payer refunded, payment.refunded written; the same authorization cannot go twice", async () => {
    const prepared = (await prepare({ amount: "0.03" })).body.signedRefund as Prepared;
    const signature = await sign(prepared);
    const [payerBefore, merchantBefore] = [await balanceOf(customer.address), await balanceOf(merchantWallet)];
    const sent = await handIn({ authorization: prepared.typedData.message, signature, reason: "returned" });
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ success: true, refund: { to: customer.address }, refundRequest: { status: "sent", authorizedBy: "merchant" } });
    const transferId = sent.body.refund.id as string;
    const row = await untilValue("the relayed refund confirmed", () => findTransferOut(api.db, transferId), (r) => r?.status === "confirmed" || r?.status === "failed");
    expect([row!.status, row!.error]).toEqual(["confirmed", null]);
    expect(await balanceOf(customer.address)).toBe(payerBefore + 30_000n);
    expect(await balanceOf(merchantWallet)).toBe(merchantBefore - 30_000n);
    const events = await untilValue(
      "payment.refunded recorded",
      async () => (await api.request(`/api/v1/events?paymentId=${paymentId}`, { method: "GET", headers: secret() })).body.events as Array<{ type: string }>,
      (list) => list.some((e) => e.type === "payment.refunded"),
    );
    expect(events.filter((e) => e.type === "payment.refunded").length).toBe(1);

    const again = await handIn({ authorization: prepared.typedData.message, signature });
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect(await balanceOf(customer.address)).toBe(payerBefore + 30_000n);
    // What is left to refund is what was paid less what went back.
    expect((await prepare({})).body.signedRefund).toMatchObject({ amount: "0.01" });
  }, 60_000);

  test("front-run: a stranger submits the wallet's authorization before the relay; the refund is that transaction, counted once", async () => {
    const prepared = (await prepare({})).body.signedRefund as Prepared;
    expect(prepared.amount).toBe("0.01");
    const signature = await sign(prepared);
    const payerBefore = await balanceOf(customer.address);
    await chain.rpc("evm_setAutomine", [false]);
    const sent = await handIn({ authorization: prepared.typedData.message, signature });
    expect(sent.status).toBe(202);
    await untilValue("the relay broadcast", () => findTransferOut(api.db, sent.body.refund.id), (r) => r?.status === "broadcast");
    // The stranger copies the authorization out of the pool and outbids the relay.
    const m = prepared.typedData.message;
    const { v, r, s: sigS } = parseSignature(signature);
    const stranger = createWalletClient({ account: privateKeyToAccount(anvilAccounts[8] as Hex), chain: localChain(31337, chain.anvil.rpcUrl), transport: http(chain.anvil.rpcUrl) });
    const frontRun = await stranger.writeContract({
      address: usdc,
      abi: testStablecoinAbi,
      functionName: "transferWithAuthorization",
      args: [m.from as Address, m.to as Address, BigInt(m.value!), BigInt(m.validAfter!), BigInt(m.validBefore!), m.nonce as Hex, Number(v), r, sigS],
      maxPriorityFeePerGas: 100_000_000_000n,
      maxFeePerGas: 200_000_000_000n,
      gas: 200_000n,
    });
    await chain.mine(1);
    await chain.rpc("evm_setAutomine", [true]);
    const row = await untilValue("the refund closed", () => findTransferOut(api.db, sent.body.refund.id), (x) => x?.status === "confirmed" || x?.status === "failed", 30_000);
    expect([row!.status, row!.txHash]).toEqual(["confirmed", frontRun]);
    expect(await balanceOf(customer.address)).toBe(payerBefore + 10_000n);
    const events = await untilValue(
      "the second payment.refunded",
      async () => (await api.request(`/api/v1/events?paymentId=${paymentId}`, { method: "GET", headers: secret() })).body.events as Array<{ type: string }>,
      (list) => list.filter((e) => e.type === "payment.refunded").length >= 2,
    );
    expect(events.filter((e) => e.type === "payment.refunded").length).toBe(2);
    expect((await prepare({})).body).toMatchObject({ error: "nothing_to_refund" });
  }, 60_000);
});

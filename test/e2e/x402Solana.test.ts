import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKeyPairSignerFromBytes, type KeyPairSigner } from "@solana/kit";
import { getAccount, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Keypair, SystemProgram, Transaction, type PublicKey } from "@solana/web3.js";
import { HTTPFacilitatorClient, x402ResourceServer } from "@x402/core/server";
import { decodePaymentResponseHeader, wrapFetchWithPaymentFromConfig } from "@x402/fetch";
import { paymentMiddleware } from "@x402/hono";
import { ExactSvmScheme as ExactSvmClientScheme } from "@x402/svm/exact/client";
import { ExactSvmSchemeV1 as ExactSvmClientSchemeV1 } from "@x402/svm/exact/v1/client";
import { ExactSvmScheme as ExactSvmServerScheme } from "@x402/svm/exact/server";
import { Hono } from "hono";
import { createLogger } from "../../config/logger.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { findTransferOut } from "../../db/transfersOut.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { INDEXED_CHANNEL } from "../../rails/index.ts";
import { startSolanaSubscriber } from "../../rails/solana/ingest/startSolanaSubscriber.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../harness/solanaChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../harness/webhookReceiver.ts";
import { untilValue } from "../../harness/until.ts";

/**
 * x402 on Solana end to end with the protocol's own packages: an agent's `@x402/fetch` (an
 * `@x402/svm` signer) pays a resource behind `@x402/hono`'s middleware, which asks our
 * facilitator (over HTTP, with the merchant's key + secret) to verify and settle on the local
 * chain; the worker co-signs the transfer as fee payer with the operator's key and sends it,
 * and the payment goes through the ledger as any other.
 *
 * x402's Solana client names only the public clusters' networks, so the local chain takes
 * testnet's genesis hash (the catalogue has no testnet: it is the local network's own).
 */
const TESTNET_GENESIS = "4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY";
const NETWORK = "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z" as const;
const PRICE = 10_000n; // 0.01 USDC

let solana: SolanaTestChain;
let api: TestApi;
let merchant: TestMerchant;
let other: TestMerchant;
let subscriber: ReturnType<typeof startSolanaSubscriber>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let receiver: WebhookReceiver;
let apiServer: ReturnType<typeof Bun.serve>;
let resourceServer: ReturnType<typeof Bun.serve>;
let customer: KeyPairSigner;
let mint: string;
let wallet: string;
const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

const secret = (m: TestMerchant) => ({ "x-api-key": m.testApiKey, "x-api-secret": m.testApiSecret });

beforeAll(async () => {
  solana = await startSolanaTestChain({ slotMs: 25, finalityDepth: 3, genesisHash: TESTNET_GENESIS });
  mint = solana.usdc.address.toBase58();
  wallet = solana.merchant.publicKey.toBase58();
  api = await createTestApi({
    networks: [solana.network],
    env: { SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey, SOLANA_POLL_INTERVAL_MS: "2000", SOLANA_HEAD_INTERVAL_MS: "50", X402_SETTLE_WAIT_MS: "20000", REFUND_MIN_AMOUNT: "0.001" },
  });
  merchant = await api.seedMerchant();
  other = await api.seedMerchant("Another merchant");
  const network = api.config.networks.find((n) => n.shortName === "solana-local")!;
  await setSettlementWallet(api.db, merchant.id, network.id, wallet);
  await setSettlementWallet(api.db, other.id, network.id, Keypair.generate().publicKey.toBase58());
  // x402's transfer pays the wallet's token account; it does not create it.
  await solana.chain.mintTo(solana.usdc, solana.merchant.publicKey, 1n);
  customer = await createKeyPairSignerFromBytes(solana.customer.secretKey);
  receiver = startWebhookReceiver(() => 200);
  expect((await api.request("/api/v1/webhook-endpoints", { headers: secret(merchant), body: { url: receiver.url("/endpoint") } })).status).toBe(201);
  // The facilitator over HTTP, as a merchant's resource server reaches it.
  apiServer = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => api.app.handle(new Request(`http://localhost${new URL(request.url).pathname}`, request)) });
  resourceServer = startResourceServer(`http://127.0.0.1:${apiServer.port}/api/v1/x402`, merchant);
  subscriber = startSolanaSubscriber({ config: api.config, db: api.db, logger, channel: INDEXED_CHANNEL });
  await subscriber.ready;
  workers = await startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
}, 120_000);

afterAll(async () => {
  resourceServer?.stop(true);
  apiServer?.stop(true);
  receiver?.stop();
  await workers?.close();
  await subscriber?.stop();
  await api?.close();
  await solana?.stop();
});

/** The merchant's own server: one paid route, `@x402/hono` pointed at our facilitator with its key + secret. */
function startResourceServer(url: string, owner: TestMerchant) {
  const auth = secret(owner);
  const facilitator = new HTTPFacilitatorClient({ url, createAuthHeaders: async () => ({ verify: auth, settle: auth, supported: auth }) });
  const server = new x402ResourceServer(facilitator).register(NETWORK, new ExactSvmServerScheme());
  const app = new Hono();
  app.use(
    paymentMiddleware(
      { "GET /report": { accepts: { scheme: "exact", network: NETWORK, payTo: wallet, price: { asset: mint, amount: PRICE.toString() } }, description: "Today's market report" } },
      server,
    ),
  );
  app.get("/report", (c) => c.json({ report: "all quiet" }));
  return Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: app.fetch });
}

const reportUrl = () => `http://127.0.0.1:${resourceServer.port}/report`;
/** The agent's client, reading the local chain; its USDC is no default asset of x402's, so it is allowed by mint (capped at the price). */
const clientConfig = (signer: KeyPairSigner) => ({
  schemes: [{ network: NETWORK, client: new ExactSvmClientScheme(signer, { rpcUrl: solana.chain.rpcUrl }) }],
  spendControls: { allowedAssets: [{ network: NETWORK, asset: mint, maxAmountPerPayment: PRICE.toString() }] },
});
const payingFetch = (signer: KeyPairSigner) => wrapFetchWithPaymentFromConfig(fetch, clientConfig(signer));
const tokenBalance = (owner: PublicKey) => getAccount(solana.connection, getAssociatedTokenAddressSync(solana.usdc.address, owner, true)).then((a) => a.amount);

type Listed = { id: string; status: string; agentId: string | null; amount: string };
const listed = async () => (await api.request("/api/v1/payments/merchant/list?limit=100", { headers: { "x-public-key": merchant.publicKey } })).body.payments as Listed[];

type Decoded = { accepted: Record<string, unknown>; payload: Record<string, unknown> } & Record<string, unknown>;
/** A payment payload the official client signs for the route, captured on its way to the resource server. */
async function signedPayment(signer: KeyPairSigner): Promise<{ header: string; decoded: Decoded }> {
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
  await wrapFetchWithPaymentFromConfig(capture, clientConfig(signer))(reportUrl());
  expect(header).not.toBe("");
  return { header, decoded: JSON.parse(Buffer.from(header, "base64").toString("utf8")) };
}

const facilitator = (path: string, headers: Record<string, string>, body?: unknown) =>
  api.request(`/api/v1/x402${path}`, { method: body === undefined ? "GET" : "POST", headers, body });

describe("x402 on Solana: an agent pays per request", () => {
  test("/supported names the exact scheme on the local chain, the operator as fee payer", async () => {
    const supported = await facilitator("/supported", secret(merchant));
    expect(supported.status).toBe(200);
    const extra = { feePayer: solana.operator.publicKey.toBase58() };
    // The local chain has testnet's genesis hash, so x402 v1's name for testnet names it too.
    expect(supported.body.kinds).toEqual([
      { x402Version: 2, scheme: "exact", network: NETWORK, extra },
      { x402Version: 1, scheme: "exact", network: "solana-testnet", extra },
    ]);
  });

  test("the official client pays a route behind the official middleware: served, paid to the merchant's wallet, in the ledger with the payer as agent, webhook sent", async () => {
    const before = await tokenBalance(solana.merchant.publicKey);
    const response = await payingFetch(customer)(reportUrl());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ report: "all quiet" });
    const settlement = decodePaymentResponseHeader(response.headers.get("payment-response")!);
    expect(settlement).toMatchObject({ success: true, payer: customer.address, network: NETWORK });
    expect(await tokenBalance(solana.merchant.publicKey)).toBe(before + PRICE);

    const payment = (await untilValue("the x402 payment completed", listed, (list) => list.some((p) => p.status === "completed")))[0]!;
    expect(payment).toMatchObject({ status: "completed", agentId: customer.address, amount: "0.01" });
    const full = await api.request(`/api/v1/payments/${payment.id}`, { headers: secret(merchant) });
    expect(full.body.payment.metadata).toMatchObject({ x402: { payer: customer.address, resource: { url: reportUrl(), description: "Today's market report" } } });
    expect(full.body.payment.transactionHash).toBe(settlement.transaction);

    const events = await untilValue(
      "payment.completed webhook",
      async () => receiver.at("/endpoint").map((r) => JSON.parse(r.body) as { type: string }),
      (list) => list.some((e) => e.type === "payment.completed"),
    );
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(["payment.created", "payment.completed"]));
  }, 60_000);

  test("a replayed payload is refused at verify; settling it again is the same settlement, not a second payment", async () => {
    const { header, decoded } = await signedPayment(customer);
    const body = { x402Version: 2, paymentPayload: decoded, paymentRequirements: decoded.accepted };
    const first = await facilitator("/settle", secret(merchant), body);
    expect(first.body).toMatchObject({ success: true, payer: customer.address, network: NETWORK });
    const paymentsAfterFirst = (await listed()).length;

    expect((await facilitator("/verify", secret(merchant), body)).body).toMatchObject({ isValid: false, invalidReason: "duplicate_settlement" });
    // Through the middleware: the resource is not served again for the same payment.
    expect((await fetch(reportUrl(), { headers: { "payment-signature": header } })).status).toBe(402);
    expect((await facilitator("/settle", secret(merchant), body)).body).toEqual(first.body);
    expect((await listed()).length).toBe(paymentsAfterFirst);
    // Another merchant cannot claim it.
    expect((await facilitator("/settle", secret(other), body)).body).toMatchObject({ success: false, errorReason: "duplicate_settlement" });
  }, 60_000);

  test("a tampered accepted, or requirements the merchant did not offer, are refused", async () => {
    const { decoded } = await signedPayment(customer);
    const requirements = decoded.accepted;
    const verify = (payload: unknown, reqs: unknown, who = merchant) => facilitator("/verify", secret(who), { x402Version: 2, paymentPayload: payload, paymentRequirements: reqs });

    const cheaper = { ...decoded, accepted: { ...requirements, amount: "1" } };
    expect((await verify(cheaper, requirements)).body).toMatchObject({ isValid: false, invalidReason: "accepted_requirements_mismatch" });
    // Requirements matching the tampered `accepted`: the signed transfer pays the price, not that.
    expect((await verify(cheaper, cheaper.accepted)).body).toMatchObject({ isValid: false, invalidReason: "invalid_exact_svm_payload_amount_mismatch" });
    const elsewhere = { ...requirements, payTo: Keypair.generate().publicKey.toBase58() };
    expect((await verify({ ...decoded, accepted: elsewhere }, elsewhere)).body).toMatchObject({ isValid: false, invalidReason: "pay_to_not_merchant_wallet" });
    const otherMint = { ...requirements, asset: solana.feeToken.address.toBase58() };
    expect((await verify({ ...decoded, accepted: otherMint }, otherMint)).body).toMatchObject({ isValid: false, invalidReason: "invalid_exact_svm_payload_mint_mismatch" });
    const otherFeePayer = { ...requirements, extra: { feePayer: customer.address } };
    expect((await verify({ ...decoded, accepted: otherFeePayer }, otherFeePayer)).body).toMatchObject({ isValid: false });
    // Another merchant's facilitator account: its wallet is not this payTo.
    expect((await verify(decoded, requirements, other)).body).toMatchObject({ isValid: false, invalidReason: "pay_to_not_merchant_wallet" });
    // The untouched payload verifies.
    expect((await verify(decoded, requirements)).body).toMatchObject({ isValid: true, payer: customer.address });
  }, 60_000);

  test("an agent's daily limit holds at verify and at settle, with 20 concurrent paid requests", async () => {
    const keypair = Keypair.generate();
    const agent = await createKeyPairSignerFromBytes(keypair.secretKey);
    // Tokens only: the operator pays the transaction's fee.
    await solana.chain.mintTo(solana.usdc, keypair.publicKey, 1_000_000n);
    const put = await api.request(`/api/v1/merchants/agent-policies/${agent.address}`, { method: "PUT", headers: secret(merchant), body: { dailyLimit: "0.05" } });
    expect(put.status).toBeLessThan(300);
    const before = await tokenBalance(solana.merchant.publicKey);
    const pay = payingFetch(agent);
    const statuses = await Promise.all(Array.from({ length: 20 }, () => pay(reportUrl()).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200).length).toBe(5);
    expect(statuses.filter((s) => s === 402).length).toBe(15);
    expect(await tokenBalance(solana.merchant.publicKey)).toBe(before + 5n * PRICE);
    expect((await listed()).filter((p) => p.agentId === agent.address && p.status !== "failed").length).toBe(5);
    // Over the limit now: refused at verify too.
    const { decoded } = await signedPayment(agent);
    const verified = await facilitator("/verify", secret(merchant), { x402Version: 2, paymentPayload: decoded, paymentRequirements: decoded.accepted });
    expect(verified.body).toMatchObject({ isValid: false, invalidReason: "agent_policy_daily_limit" });
  }, 90_000);

  test("a payer without the money is refused at verify", async () => {
    const broke = await createKeyPairSignerFromBytes(Keypair.generate().secretKey);
    const { decoded } = await signedPayment(broke);
    const verified = await facilitator("/verify", secret(merchant), { x402Version: 2, paymentPayload: decoded, paymentRequirements: decoded.accepted });
    expect(verified.body).toMatchObject({ isValid: false, invalidReason: "insufficient_funds", payer: broke.address });
  }, 60_000);

  test("x402 v1: the official v1 client's payload verifies and settles under v1's network name", async () => {
    const requirements = {
      scheme: "exact",
      network: "solana-testnet",
      maxAmountRequired: PRICE.toString(),
      asset: mint,
      payTo: wallet,
      resource: reportUrl(),
      description: "Today's market report",
      mimeType: "application/json",
      maxTimeoutSeconds: 60,
      extra: { feePayer: solana.operator.publicKey.toBase58() },
    };
    const before = await tokenBalance(solana.merchant.publicKey);
    const paymentPayload = await new ExactSvmClientSchemeV1(customer, { rpcUrl: solana.chain.rpcUrl }).createPaymentPayload(1, requirements as never);
    const body = { x402Version: 1, paymentPayload, paymentRequirements: requirements };
    expect((await facilitator("/verify", secret(merchant), body)).body).toMatchObject({ isValid: true, payer: customer.address });
    const settled = await facilitator("/settle", secret(merchant), body);
    expect(settled.body).toMatchObject({ success: true, payer: customer.address, network: "solana-testnet" });
    expect(await tokenBalance(solana.merchant.publicKey)).toBe(before + PRICE);
    const payment = await untilValue("the v1 payment listed", listed, (list) => list.some((p) => p.agentId === customer.address && p.status === "completed"));
    expect(payment.length).toBeGreaterThan(0);
    // The same payload again is the same settlement, refused at verify.
    expect((await facilitator("/verify", secret(merchant), body)).body).toMatchObject({ isValid: false, invalidReason: "duplicate_settlement" });
  }, 60_000);
});

describe("x402 on Solana: a refund the merchant's wallet signs", () => {
  test("prepared by the service, signed by the wallet, relayed with the operator as fee payer: the payer refunded; strangers, a forged signature or an added instruction move nothing", async () => {
    const payment = (await listed()).find((p) => p.status === "completed" && p.agentId === customer.address)!;
    const prepare = (headers: Record<string, string>) => api.request(`/api/v1/payments/${payment.id}/signed-refunds/prepare`, { headers, body: {} });
    const handIn = (transaction: Transaction) =>
      api.request(`/api/v1/payments/${payment.id}/signed-refunds`, { headers: secret(merchant), body: { transaction: transaction.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64") } });
    expect((await prepare({})).status).toBe(401);
    expect((await prepare({ "x-public-key": merchant.publicKey })).status).toBe(401);
    expect((await prepare(secret(other))).status).toBe(404);

    const prepared = await prepare(secret(merchant));
    expect(prepared.status).toBe(200);
    expect(prepared.body.signedRefund).toMatchObject({ format: "solana_transaction", from: wallet, to: customer.address, amount: "0.01", token: "USDC" });
    const unsigned = () => Transaction.from(Buffer.from(prepared.body.signedRefund.transaction, "base64"));

    // Not the wallet's signature in the wallet's place.
    const forged = unsigned();
    forged.addSignature(solana.merchant.publicKey, Buffer.alloc(64, 7));
    expect((await handIn(forged)).body).toMatchObject({ error: "refund_signature_invalid" });
    expect((await handIn(unsigned())).body).toMatchObject({ error: "refund_signature_invalid" });
    // One more instruction, signed by the wallet: the operator's key would pay for it. Refused.
    const withMore = unsigned().add(SystemProgram.transfer({ fromPubkey: solana.operator.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1_000_000 }));
    withMore.partialSign(solana.merchant);
    const more = await handIn(withMore);
    expect([more.status, more.body.message]).toEqual([400, expect.stringContaining("not a refund this service prepared")]);

    const before = await tokenBalance(solana.customer.publicKey);
    const signed = unsigned();
    signed.partialSign(solana.merchant);
    const sent = await handIn(signed);
    expect(sent.status).toBe(202);
    expect(sent.body).toMatchObject({ refund: { to: customer.address, amount: "0.01" }, refundRequest: { status: "sent", authorizedBy: "merchant" } });
    const row = await untilValue("the relayed refund final", () => findTransferOut(api.db, sent.body.refund.id), (r) => r?.status === "confirmed" || r?.status === "failed", 30_000);
    expect([row!.status, row!.error]).toEqual(["confirmed", null]);
    expect(await tokenBalance(solana.customer.publicKey)).toBe(before + PRICE);
    // Refunded in full: nothing is left to prepare, and the same transaction cannot go again.
    expect((await prepare(secret(merchant))).body).toMatchObject({ error: "nothing_to_refund" });
    expect((await handIn(signed)).status).toBeGreaterThanOrEqual(400);
  }, 90_000);
});

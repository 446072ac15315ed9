import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import { createWalletClient, erc20Abi, http, type Address, type Hex } from "viem";
import { createLogger } from "../../config/logger.ts";
import { paymentSettlementAbi } from "../../contracts/artifacts/index.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { INDEXED_CHANNEL } from "../../rails/index.ts";
import { startSolanaSubscriber } from "../../rails/solana/ingest/startSolanaSubscriber.ts";
import type { TestMint } from "@stablepay/devchain/solana";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../harness/solanaChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { testStablecoinAbi, testStablecoinBytecode } from "@stablepay/devchain/evm";

/**
 * Counterfeit money credits nothing, through the whole service (API, real Postgres and
 * Redis, the Ponder indexer on anvil, the subscriber on the local Solana chain, the
 * workers): an ERC-20 that is not in the catalogue — deployed from the very contract the
 * listed tokens are, named "USD Coin", symbol USDC, 6 decimals — emitting `Transfer` to a
 * deposit address, to the merchant's wallet, to the settlement contract; and on Solana a
 * mint that is not the payment's (an unlisted one, and a listed one of another token) sent
 * to a deposit address or to the merchant with the payment's Solana Pay reference. Neither
 * ingest nor a submitted transaction (`/payments/process`) nor `verify-qr` counts them.
 */
let chain: PaymentChain;
let solana: SolanaTestChain;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let subscriber: ReturnType<typeof startSolanaSubscriber>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let usdc: Address;
let fake: Address;
let fakeMint: TestMint;
let attacker: Keypair;
const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

beforeAll(async () => {
  [chain, solana] = await Promise.all([startPaymentChain({ requiredConfirmations: 2 }), startSolanaTestChain({ slotMs: 25, finalityDepth: 3 })]);
  usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  // The counterfeit: the same contract as the listed test tokens, the same name and symbol, not in the catalogue.
  const forger = createWalletClient({ account: customer, transport: http(chain.anvil.rpcUrl) });
  const deployed = await forger.deployContract({ abi: testStablecoinAbi, bytecode: testStablecoinBytecode, args: ["USD Coin", "USDC", 6, "2"], chain: null });
  fake = (await chain.publicClient.waitForTransactionReceipt({ hash: deployed })).contractAddress!;
  await chain.publicClient.waitForTransactionReceipt({ hash: await forger.writeContract({ address: fake, abi: testStablecoinAbi, functionName: "mint", args: [customer.address, 10n ** 15n], chain: null }) });
  fakeMint = await solana.chain.createMint({ decimals: 6 });
  attacker = (await solana.chain.createFundedCustomer({ tokens: [{ mint: fakeMint, amount: 10n ** 12n }] })).keypair;

  api = await createTestApi({
    networks: [solana.network],
    env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey, SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey, SOLANA_POLL_INTERVAL_MS: "500", SOLANA_HEAD_INTERVAL_MS: "50" },
  });
  merchant = await api.seedMerchant();
  const idOf = (shortName: string) => api.config.networks.find((n) => n.shortName === shortName)!.id;
  await setSettlementWallet(api.db, merchant.id, idOf("anvil"), merchantWallet);
  await setSettlementWallet(api.db, merchant.id, idOf("solana-local"), solana.merchant.publicKey.toBase58());
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
  subscriber = startSolanaSubscriber({ config: api.config, db: api.db, logger, channel: INDEXED_CHANNEL });
  await subscriber.ready;
  workers = await startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
}, 180_000);

afterAll(async () => {
  const bounded = (p: Promise<unknown> | undefined) => Promise.race([p?.catch(() => {}), Bun.sleep(15_000)]);
  await bounded(workers?.close());
  await bounded(subscriber?.stop());
  await bounded(indexer?.stop());
  await bounded(api?.close());
  await bounded(chain?.stop());
  await bounded(solana?.stop());
});

const headers = () => ({ "x-public-key": merchant.publicKey });
type Status = { status: string; amountReceived: string };
const statusOf = async (id: string): Promise<Status> => (await api.request(`/api/v1/payments/${id}/status`, { headers: headers() })).body.payment;

async function waitFor(id: string, predicate: (p: Status) => boolean, timeoutMs = 30_000): Promise<Status> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const status = await statusOf(id);
    if (predicate(status)) return status;
    if (Date.now() > end) throw new Error(`payment ${id} stuck at ${JSON.stringify(status)}`);
    await Bun.sleep(100);
  }
}

async function create(path: "/api/v1/payments/create" | "/api/v1/deposits/create", network: string, amount = "10") {
  const response = await api.request(path, { headers: headers(), body: { amount, currency: "USDC", network, orderId: crypto.randomUUID() } });
  expect(response.status).toBe(201);
  return response.body.payment as { id: string; depositAddress?: string; receiveAddress: string; solanaPay?: { reference: string } };
}

/** `/payments/process` with a transaction that pays the payment nothing: refused, nothing recorded. */
async function submitted(paymentId: string, txHash: string) {
  const response = await api.request("/api/v1/payments/process", { headers: headers(), body: { paymentId, txHash } });
  expect({ status: response.status, message: response.body.message }).toEqual({ status: 400, message: `Invalid field 'txHash': transaction ${txHash} does not pay payment ${paymentId}` });
}

describe("EVM: an unlisted ERC-20 named USDC", () => {
  const sendFake = async (to: Address, amount: bigint) => {
    const hash = await chain.customerWallet.writeContract({ address: fake, abi: erc20Abi, functionName: "transfer", args: [to, amount], account: customer, chain: null });
    expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
    return hash;
  };
  /** A genuine payment indexed after the counterfeit ones: the indexer (in block order) has read past them. */
  async function indexedPast() {
    const control = await create("/api/v1/deposits/create", "anvil", "1");
    const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [control.depositAddress as Address, 1_000_000n], account: customer, chain: null });
    await chain.publicClient.waitForTransactionReceipt({ hash });
    await waitFor(control.id, (p) => p.amountReceived === "1");
    await chain.mine(3);
    await Bun.sleep(500);
  }

  test("sent to a deposit address: nothing credited, by ingest or by submitting its transaction", async () => {
    const deposit = await create("/api/v1/deposits/create", "anvil");
    const hash = await sendFake(deposit.depositAddress as Address, 10_000_000n);
    await submitted(deposit.id, hash);
    await indexedPast();
    expect(await statusOf(deposit.id)).toMatchObject({ status: "pending", amountReceived: "0" });
    const status = (await api.request(`/api/v1/deposits/status/${deposit.id}`, { headers: headers() })).body.payment;
    expect(status).toMatchObject({ status: "pending", amountReceived: "0" });
  }, 60_000);

  test("sent to a contract payment's address, to the merchant's wallet and to the settlement contract: nothing credited; the contract refuses an intent for it", async () => {
    const payment = (await api.request("/api/v1/payments/create", { headers: headers(), body: { amount: "10", currency: "USDC", network: "anvil", orderId: crypto.randomUUID() } })).body.payment as {
      id: string;
      receiveAddress: Address;
      intent: { paymentId: Hex; merchant: Address; token: Address; amount: string; fee: string; feeRecipient: Address; deadline: string };
      signature: Hex;
    };
    const hashes = [
      await sendFake(payment.receiveAddress, 10_000_000n),
      await sendFake(merchantWallet, 10_000_000n),
      await sendFake(chain.settlement, 10_000_000n),
    ];
    for (const hash of hashes) await submitted(payment.id, hash);
    // The operator's intent names the listed token: paid in the counterfeit, its signature no longer holds.
    const intent = { ...payment.intent, token: fake, amount: BigInt(payment.intent.amount), fee: BigInt(payment.intent.fee), deadline: BigInt(payment.intent.deadline) };
    const refused = await chain.publicClient
      .simulateContract({ account: customer, address: chain.settlement, abi: paymentSettlementAbi, functionName: "pay", args: [intent, payment.signature] })
      .then(() => "settled", (error: Error) => error.message);
    expect(refused).toContain("InvalidSignature");
    await indexedPast();
    expect(await statusOf(payment.id)).toMatchObject({ status: "pending", amountReceived: "0" });
  }, 60_000);
});

describe("Solana: a mint that is not the payment's", () => {
  const network = "solana-local";

  test("sent to a deposit address (an unlisted mint, and another listed token): nothing credited; the payment's own mint is", async () => {
    const deposit = await create("/api/v1/deposits/create", network);
    const signatures = [
      await solana.pay({ to: deposit.depositAddress!, amount: 10_000_000n, mint: fakeMint, from: attacker }),
      await solana.pay({ to: deposit.depositAddress!, amount: 10_000_000n, mint: solana.feeToken }),
    ];
    for (const signature of signatures) await submitted(deposit.id, signature);
    expect(await statusOf(deposit.id)).toMatchObject({ status: "pending", amountReceived: "0" });
    // Then 1 of the payment's own mint, found after the counterfeits: it alone counts.
    await solana.pay({ to: deposit.depositAddress!, amount: 1_000_000n });
    await waitFor(deposit.id, (p) => p.amountReceived !== "0");
    await Bun.sleep(1_500); // the subscriber's next passes, to finality
    expect(await statusOf(deposit.id)).toMatchObject({ status: "pending", amountReceived: "1" });
  }, 60_000);

  test("sent to the merchant with the payment's Solana Pay reference: nothing credited, by ingest, verify-qr or a submission", async () => {
    const payment = await create("/api/v1/payments/create", network);
    const reference = payment.solanaPay!.reference;
    const signatures = [
      await solana.pay({ to: solana.merchant.publicKey, amount: 10_000_000n, mint: fakeMint, from: attacker, reference }),
      await solana.pay({ to: solana.merchant.publicKey, amount: 10_000_000n, mint: solana.feeToken, reference }),
    ];
    for (const signature of signatures) await submitted(payment.id, signature);
    const verified = await api.request("/api/v1/payments/verify-qr", { headers: headers(), body: { paymentId: payment.id } });
    expect(verified.status).toBeLessThan(500);
    expect(verified.body.verified).not.toBe(true);
    expect(await statusOf(payment.id)).toMatchObject({ status: "pending", amountReceived: "0" });
    await solana.pay({ to: solana.merchant.publicKey, amount: 1_000_000n, reference });
    await waitFor(payment.id, (p) => p.amountReceived !== "0");
    await Bun.sleep(1_500);
    expect(await statusOf(payment.id)).toMatchObject({ status: "pending", amountReceived: "1" });
  }, 60_000);
});

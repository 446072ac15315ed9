import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createAssociatedTokenAccountInstruction, createTransferInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { PublicKey, type TransactionInstruction } from "@solana/web3.js";
import { createLogger } from "../../config/logger.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { INDEXED_CHANNEL } from "../../rails/index.ts";
import { startSolanaSubscriber } from "../../rails/solana/ingest/startSolanaSubscriber.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../harness/solanaChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { loadCoinleyPay, type SimplePaymentApi } from "./coinleyPay.ts";
import { teardown } from "../../harness/teardown.ts";

/**
 * The published client SDK's Solana flow against the sandbox on a live local chain (slots
 * every 25 ms): its own `SimplePaymentAPI` creates the payment, the customer's wallet sends
 * the SDK's own transfer (its `sendSPLToken`: a plain `transfer` to the merchant's token
 * account, no Solana Pay reference, the amount as the SDK computes it), the SDK posts the
 * signature to `/payments/process`, and the payment completes at `finalized` with that
 * signature. Then its deposit flow. Subscriber and workers run as in production.
 */
const { SimplePaymentAPI } = loadCoinleyPay();
let solana: SolanaTestChain;
let api: TestApi;
let merchant: TestMerchant;
let subscriber: ReturnType<typeof startSolanaSubscriber>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let sdk: SimplePaymentApi;
const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

beforeAll(async () => {
  solana = await startSolanaTestChain({ slotMs: 25, finalityDepth: 3, blockhashValiditySlots: 40 });
  api = await createTestApi({
    networks: [solana.network],
    env: { SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey, SOLANA_POLL_INTERVAL_MS: "2000", SOLANA_HEAD_INTERVAL_MS: "50" },
  });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "solana-local")!.id, solana.merchant.publicKey.toBase58());
  subscriber = startSolanaSubscriber({ config: api.config, db: api.db, logger, channel: INDEXED_CHANNEL });
  await subscriber.ready;
  workers = await startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
  api.app.listen({ hostname: "127.0.0.1", port: 0 });
  sdk = new SimplePaymentAPI(`http://127.0.0.1:${api.app.server!.port}`, merchant.publicKey);
}, 60_000);

afterAll(async () => {
  await teardown([
    () => api?.app.stop(true),
    () => workers?.close(),
    () => subscriber?.stop(),
    () => api?.close(),
    () => solana?.stop(),
  ]);
});

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await Bun.sleep(100);
  }
}

/** The SDK's `sendSPLToken(mint, recipient, amount, decimals)`: a `transfer` of `Math.floor(amount * 10^decimals)` to the recipient's ATA (created if missing). */
async function sdkSendSplToken(mint: string, recipient: string, amount: number, decimals: number): Promise<string> {
  const from = solana.customer;
  const mintKey = new PublicKey(mint);
  const source = getAssociatedTokenAddressSync(mintKey, from.publicKey);
  const destination = getAssociatedTokenAddressSync(mintKey, new PublicKey(recipient));
  const instructions: TransactionInstruction[] = [];
  if (!(await solana.connection.getAccountInfo(destination))) instructions.push(createAssociatedTokenAccountInstruction(from.publicKey, destination, new PublicKey(recipient), mintKey));
  instructions.push(createTransferInstruction(source, destination, from.publicKey, Math.floor(amount * Math.pow(10, decimals))));
  const signature = await solana.send(instructions, [from]);
  await until("confirmed", () => solana.connection.getSignatureStatuses([signature]), (s) => ["confirmed", "finalized"].includes(s.value[0]?.confirmationStatus ?? ""));
  return signature;
}

describe("the SDK's Solana wallet flow", () => {
  test("created, paid with the SDK's own transfer, processed with its body, completed with the signature", async () => {
    const created = await sdk.createPayment({
      amount: "12.5",
      currency: "USDC",
      network: "solana-local",
      customerEmail: "buyer@example.com",
      metadata: { merchantWalletAddresses: { solana: solana.merchant.publicKey.toBase58() }, paymentMethod: "wallet", selectedNetwork: "solana-local", selectedToken: "USDC", wagmiEnabled: true },
    });
    const payment = created.payment;
    // What the SDK reads to choose its transfer: no fee wallet, so one transfer to the merchant.
    expect(payment).toMatchObject({ recipientWallet: solana.merchant.publicKey.toBase58(), totalAmount: "12.5", merchantPercentage: 10_000, coinleyPercentage: 0, coinleyWallet: null });
    const useSplitPayment = Boolean(payment.coinleyWallet && payment.merchantPercentage && payment.coinleyPercentage);
    expect(useSplitPayment).toBe(false);

    const { stablecoins } = await sdk.getTokens();
    const token = stablecoins.find((t: { symbol: string; Network: { shortName: string } }) => t.symbol === "USDC" && t.Network.shortName === "solana-local");
    const signature = await sdkSendSplToken(token.contractAddress, payment.recipientWallet, parseFloat(payment.totalAmount || payment.amount), token.decimals);
    const processed = await sdk.processPayment(payment.id, signature, "solana-local", solana.customer.publicKey.toBase58());
    expect(processed).toMatchObject({ success: true, payment: { amountReceived: "12.5", transactionHash: signature } });

    const completed = await until("completed", () => sdk.checkPaymentStatus(payment.id), (s) => s.payment.status === "completed");
    expect(completed).toMatchObject({ success: true, payment: { status: "completed", transactionHash: signature } });
    expect(await sdk.verifyQRPayment(payment.id)).toMatchObject({ success: true, verified: true, onChainData: { transactionHash: signature, from: solana.customer.publicKey.toBase58() } });
  });

  test("the same signature for another payment: the SDK's process fails, nothing is credited", async () => {
    const first = (await sdk.createPayment({ amount: "2", currency: "USDC", network: "solana-local", metadata: { n: 1 } })).payment;
    const second = (await sdk.createPayment({ amount: "2", currency: "USDC", network: "solana-local", metadata: { n: 2 } })).payment;
    const signature = await sdkSendSplToken(solana.usdc.address.toBase58(), first.recipientWallet, 2, 6);
    await sdk.processPayment(first.id, signature, "solana-local", solana.customer.publicKey.toBase58());
    await expect(sdk.processPayment(second.id, signature, "solana-local", solana.customer.publicKey.toBase58())).rejects.toThrow("invalid_request");
    expect((await sdk.checkPaymentStatus(second.id)).payment).toMatchObject({ status: "pending", amountReceived: "0" });
  });
});

describe("the SDK's Solana deposit flow", () => {
  test("a deposit created by the SDK, paid, ends completed with a hash on /deposits/status", async () => {
    const { payment: deposit } = await sdk.createDepositPayment({ amount: "7", currency: "USDC", network: "solana-local", customerEmail: "buyer@example.com", metadata: { paymentMethod: "deposit_address" } });
    expect(deposit).toMatchObject({ status: "pending", requiredConfirmations: 3 });
    const signature = await sdkSendSplToken(solana.usdc.address.toBase58(), deposit.depositAddress, 7, 6);
    const completed = await until("completed", () => sdk.getDepositStatus(deposit.id), (s) => s.payment.status === "completed");
    expect(completed).toMatchObject({ success: true, payment: { status: "completed", transactionHash: signature, depositTxHash: signature } });
    const swept = await until("swept", () => sdk.getDepositStatus(deposit.id), (s) => s.payment.sweepTxHash !== null);
    expect(swept.payment.sweepTxHash).toBe(swept.payment.sweeps.find((t: { status: string }) => t.status === "confirmed").transactionHash);
  });
});

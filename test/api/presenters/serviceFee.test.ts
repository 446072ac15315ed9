import { afterAll, beforeAll, expect, test } from "bun:test";
import { Keypair } from "@solana/web3.js";
import type { FileNetworkInput } from "../../../config/index.ts";
import { setSettlementWallet } from "../../../db/settlementWallets.ts";
import { anvilNetwork } from "../../../harness/fixtures.ts";
import { operatorKey, merchantWallet } from "../../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../../harness/testApi.ts";

/**
 * The service fee (FEE_BPS) is shown only where it is collected: an EVM contract payment
 * (the settlement contract pays it to FEE_RECIPIENT). A Solana Pay payment pays the
 * merchant's wallet whole, so it carries none: it once advertised a fee no one collected.
 */
const FEE_RECIPIENT = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
const solanaWallet = Keypair.generate().publicKey.toBase58();
const solana: FileNetworkInput = {
  name: "Solana Test",
  shortName: "solana-local",
  chainId: "solana-fee-test",
  type: "solana",
  isTestnet: true,
  isLocal: true,
  requiredConfirmations: 1,
  tokens: [{ symbol: "USDC", name: "USD Coin (test)", address: Keypair.generate().publicKey.toBase58(), decimals: 6 }],
  // No node is asked: a Solana Pay payment is prepared offline.
  rpcUrl: "http://127.0.0.1:1",
};
let api: TestApi;
let merchant: TestMerchant;

beforeAll(async () => {
  const evm = anvilNetwork("http://127.0.0.1:1", {
    settlementContract: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
    forwarderFactory: "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
  });
  api = await createTestApi({ networks: [evm, solana], env: { FEE_BPS: "100", FEE_RECIPIENT, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant();
  const id = (shortName: string) => api.config.networks.find((n) => n.shortName === shortName)!.id;
  await setSettlementWallet(api.db, merchant.id, id("anvil"), merchantWallet);
  await setSettlementWallet(api.db, merchant.id, id("solana-local"), solanaWallet);
}, 60_000);

afterAll(async () => {
  await api?.close();
});

const create = (network: string) =>
  api.request("/api/v1/payments/create", { headers: { "x-public-key": merchant.publicKey }, body: { amount: "100", currency: "USDC", network, orderId: crypto.randomUUID() } });
const full = async (id: string) =>
  (await api.request(`/api/v1/payments/${id}`, { headers: { "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret } })).body.payment;

test("an EVM contract payment carries the 1% fee its contract pays to the fee recipient", async () => {
  const response = await create("anvil");
  expect(response.status).toBe(201);
  const payment = await full(response.body.payment.id);
  expect(payment.settlement).toMatchObject({ merchantAmount: "99", feeAmount: "1", feeRecipient: FEE_RECIPIENT });
  expect(payment.intent).toMatchObject({ fee: "1000000", feeRecipient: FEE_RECIPIENT });
});

test("a Solana Pay payment carries no fee: the merchant's wallet is paid the whole amount, and that is what is shown", async () => {
  const response = await create("solana-local");
  expect(response.status).toBe(201);
  expect(response.body.payment.paymentUri).toStartWith(`solana:${solanaWallet}?amount=100&`);
  const payment = await full(response.body.payment.id);
  expect(payment.settlement).toMatchObject({ merchantAmount: "100", feeAmount: "0", feeRecipient: null });
  const splitter = await api.request(`/api/v1/payments/splitter-status/${response.body.payment.id}`, { headers: { "x-public-key": merchant.publicKey } });
  expect(splitter.status).toBe(200);
  expect(splitter.body.paymentSplitterStatus).toMatchObject({ merchantAmount: "100", feeAmount: "0", feeRecipient: null });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { erc20Abi, type Abi, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createLogger } from "../../config/logger.ts";
import { queryRows } from "../../db/client.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { anvilAccounts } from "@stablepay/devchain/evm";
import { startWorkers } from "../../jobs/worker.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { loadCoinleyPay, type SimplePaymentApi } from "./coinleyPay.ts";
import { teardown } from "../../harness/teardown.ts";

/**
 * The published client SDK (`coinley-pay` 0.0.39), as a merchant moving to this service
 * would run it: its own `SimplePaymentAPI` and `splitPayment` params helper, evaluated from
 * the package's text, pointed at the sandbox (served on a port) with the merchant's public
 * key. A real wallet pays on anvil through the settlement contract's `splitPayment` with the
 * ABI from `contractInfo`; the real indexer records it; workers confirm and sweep. Then the
 * SDK's deposit flow, and the MCP server's agent deposits.
 */
const { SimplePaymentAPI, createSplitPaymentParams } = loadCoinleyPay();
const feeWallet = privateKeyToAccount(anvilAccounts[6] as Hex).address;
const stranger = privateKeyToAccount(anvilAccounts[7] as Hex);

let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let base: string;
let sdk: SimplePaymentApi;
let usdc: Address;

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 2, alsoFund: [stranger.address] });
  usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  // The network with an explorer, for the deposit's explorer link.
  writeFileSync(chain.networksFile, JSON.stringify({ networks: [{ ...chain.network, explorerUrl: "https://explorer.example" }] }));
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey, FEE_BPS: "175", FEE_RECIPIENT: feeWallet } });
  merchant = await api.seedMerchant("SDK merchant");
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
  [indexer, workers] = await Promise.all([
    startTestIndexer(api.config, api.databaseUrl, chain.networksFile),
    startWorkers({ config: api.config, db: api.db, logger: createLogger({ level: "silent" }), databaseUrl: api.databaseUrl }),
  ]);
  api.app.listen({ hostname: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${api.app.server!.port}`;
  sdk = new SimplePaymentAPI(base, merchant.publicKey);
}, 120_000);

afterAll(async () => {
  await teardown([
    () => api?.app.stop(true),
    () => workers?.close(),
    () => indexer?.stop(),
    () => api?.close(),
    () => chain?.stop(),
  ]);
});

const balanceOf = (owner: Address) => chain.publicClient.readContract({ address: usdc, abi: erc20Abi, functionName: "balanceOf", args: [owner] });

/** Polls `read` (mining a block each time, as a live chain would) until `done` holds. */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await chain.mine(1);
    await Bun.sleep(100);
  }
}

/** The SDK widget's wallet step: approve `approvalAmount` to the contract, then `splitPayment` with the ABI from `contractInfo`. */
async function payWithSplit(payment: { contractCall: { contractAddress: Address; tokenAddress: Address; approvalAmount: string; params: unknown } }, abi: Abi, from = customer) {
  const { contractCall } = payment;
  const approve = await chain.customerWallet.writeContract({
    address: contractCall.tokenAddress, abi: erc20Abi, functionName: "approve", args: [contractCall.contractAddress, BigInt(contractCall.approvalAmount)], account: from, chain: null,
  });
  await chain.publicClient.waitForTransactionReceipt({ hash: approve });
  const hash = await chain.customerWallet.writeContract({ address: contractCall.contractAddress, abi, functionName: "splitPayment", args: [createSplitPaymentParams(contractCall.params)], account: from, chain: null });
  expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
  return hash;
}

/** What the SDK's widget sends as the creation body (`usePaymentFlow.createPayment`). */
const widgetBody = (amount: string) => ({
  amount,
  currency: "USDC",
  network: "anvil",
  customerEmail: "buyer@example.com",
  callbackUrl: "https://shop.example/api/webhooks/coinley",
  metadata: {
    orderRef: `sdk-${crypto.randomUUID()}`,
    merchantWalletAddresses: { anvil: merchantWallet },
    paymentMethod: "wallet",
    selectedNetwork: "anvil",
    selectedToken: "USDC",
    wagmiEnabled: true,
    source: "vanilla-sdk",
  },
});

describe("the catalogue", () => {
  test("networks and stablecoins as the SDK reads them", async () => {
    const networks = await sdk.getNetworks();
    expect(networks.networks.map((n: { shortName: string }) => n.shortName)).toContain("anvil");
    const tokens = await sdk.getTokens();
    expect(tokens.stablecoins).toContainEqual(expect.objectContaining({ symbol: "USDC", contractAddress: usdc, decimals: 6, Network: expect.objectContaining({ shortName: "anvil", chainId: "31337" }) }));
  });
});

describe("the wallet flow: create, approve, splitPayment, process, completed", () => {
  let payment: any;
  let hash: Hex;

  test("a payment is created with what the widget sends, and carries the contract call", async () => {
    const body = widgetBody("25.5");
    const created = await sdk.createPayment(body);
    expect(created.success).toBe(true);
    payment = created.payment;
    // Objects and a boolean in metadata, returned as given.
    expect(payment.metadata).toEqual(body.metadata);
    expect(payment).toMatchObject({
      status: "pending",
      amount: "25.5",
      totalAmount: "25.5",
      merchantWallet,
      recipientWallet: merchantWallet,
      merchantPercentage: 9_825,
      coinleyWallet: feeWallet,
      coinleyPercentage: 175,
    });
    expect(payment.contractCall).toEqual({
      contractAddress: chain.settlement,
      tokenAddress: usdc,
      approvalAmount: "25500000",
      params: {
        token: usdc,
        amount: "25500000",
        paymentId: payment.id,
        recipient1: merchantWallet,
        recipient2: feeWallet,
        recipient3: "0x0000000000000000000000000000000000000000",
        recipient1Percentage: 9_825,
        recipient2Percentage: 175,
        recipient3Percentage: 0,
      },
    });
  });

  test("contractInfo by decimal and by hex chain id: the address and the ABI with splitPayment", async () => {
    const decimal = await sdk.getContractInfo("31337");
    const hex = await sdk.getContractInfo("0x7a69");
    expect(hex).toEqual(decimal);
    expect(decimal.address).toBe(chain.settlement);
    expect(decimal.abi).toContainEqual(expect.objectContaining({ type: "function", name: "splitPayment" }));
  });

  test("a stranger's splitPayment under the id, paying himself, credits nothing and blocks nothing", async () => {
    const squat = { ...payment.contractCall.params, amount: "1", recipient1: stranger.address, recipient2: stranger.address, recipient1Percentage: 10_000, recipient2Percentage: 0 };
    const { abi } = await sdk.getContractInfo("31337");
    const squatHash = await payWithSplit({ contractCall: { ...payment.contractCall, approvalAmount: "1", params: squat } }, abi, stranger);
    await expect(sdk.processPayment(payment.id, squatHash, "anvil", stranger.address)).rejects.toThrow("invalid_request");
    expect((await sdk.checkPaymentStatus(payment.id)).payment).toMatchObject({ status: "pending", amountReceived: "0" });
  });

  test("approved and paid through splitPayment with the ABI from contractInfo, then processed with the SDK's body", async () => {
    const { abi } = await sdk.getContractInfo(payment.chainId);
    const [merchantBefore, feeBefore] = [await balanceOf(merchantWallet), await balanceOf(feeWallet)];
    hash = await payWithSplit(payment, abi);
    expect((await balanceOf(merchantWallet)) - merchantBefore).toBe(25_053_750n);
    expect((await balanceOf(feeWallet)) - feeBefore).toBe(446_250n);
    const processed = await sdk.processPayment(payment.id, hash, "anvil", customer.address);
    expect(processed).toMatchObject({ success: true, payment: { id: payment.id, amountReceived: "25.5", transactionHash: hash } });
  });

  test("its status turns completed with that transaction's hash", async () => {
    const status = await until("completed", () => sdk.checkPaymentStatus(payment.id), (s) => s.payment.status === "completed");
    expect(status).toMatchObject({ success: true, payment: { status: "completed", amountReceived: "25.5", transactionHash: hash } });
    // The indexer recorded the call (past its block only indexed rows count): as the chain said it.
    const rows = await queryRows<{ payment_id: string; received: string; recipient1: string }>(
      api.db,
      sql`select payment_id, received::text, recipient1 from ${sql.identifier(api.config.indexer.viewsSchema)}.split_payment where tx_hash = ${hash}`,
    );
    expect(rows).toEqual([{ payment_id: payment.id, received: "25500000", recipient1: merchantWallet.toLowerCase() }]);
  });

  test("verify-qr answers verified, with the transaction and its sender", async () => {
    const verified = await sdk.verifyQRPayment(payment.id);
    expect(verified).toMatchObject({ success: true, verified: true, onChainData: { transactionHash: hash, from: customer.address }, payment: { status: "completed", transactionHash: hash } });
  });

  test("the same params again are refused on chain with the SDK's reason, and nothing more is taken", async () => {
    const { abi } = await sdk.getContractInfo("31337");
    const error = await chain.publicClient
      .simulateContract({ account: customer, address: payment.contractCall.contractAddress, abi, functionName: "splitPayment", args: [createSplitPaymentParams(payment.contractCall.params)] })
      .catch((e: Error) => e);
    expect(String((error as Error).message)).toContain("Payment ID already used");
  });
});

describe("a splitPayment naming other recipients or shares credits nothing", () => {
  test("all of it to the fee wallet (the merchant gets nothing): 400 from process, the payment stays pending", async () => {
    const { payment } = await sdk.createPayment(widgetBody("3"));
    const { abi } = await sdk.getContractInfo("31337");
    const skewed = { ...payment.contractCall.params, recipient1Percentage: 0, recipient2Percentage: 10_000 };
    const paid = await payWithSplit({ contractCall: { ...payment.contractCall, params: skewed } }, abi);
    await expect(sdk.processPayment(payment.id, paid, "anvil", customer.address)).rejects.toThrow("invalid_request");
    // The indexer has it too: still nothing.
    await chain.mine(3);
    await Bun.sleep(1_000);
    expect((await sdk.checkPaymentStatus(payment.id)).payment).toMatchObject({ status: "pending", amountReceived: "0", transactionHash: null });
  });
});

describe("the SDK's other calls", () => {
  test("failPayment with its body closes a payment nothing was paid to", async () => {
    const { payment } = await sdk.createPayment(widgetBody("2"));
    const failed = await sdk.failPayment(payment.id);
    expect(failed).toMatchObject({ success: true, payment: { id: payment.id, status: "failed" } });
  });

  test("supported deposit chains, as the SDK lists them", async () => {
    expect(await sdk.getSupportedDepositChains()).toEqual({ success: true, chains: [{ chainId: 31337, name: "Anvil", shortName: "anvil", confirmations: 2 }] });
  });

  test("payments/health carries paymentSplitterHealth", async () => {
    const health = await (await fetch(`${base}/api/payments/health`)).json();
    expect(health.paymentSplitterHealth).toEqual({
      status: "ok",
      contracts: [{ network: "anvil", chainId: "31337", contractAddress: chain.settlement, rpcReachable: true, payable: true }],
    });
  });
});

describe("the deposit flow", () => {
  let deposit: any;

  test("a deposit created by the SDK, converting a wallet payment (existingPaymentId)", async () => {
    const { payment: wallet } = await sdk.createPayment(widgetBody("10"));
    const response = await sdk.createDepositPayment({
      amount: "10",
      currency: "USDC",
      network: "anvil",
      customerEmail: "buyer@example.com",
      metadata: { merchantWalletAddresses: { anvil: merchantWallet }, paymentMethod: "deposit_address", selectedNetwork: "anvil", selectedToken: "USDC" },
      existingPaymentId: wallet.id,
    });
    expect(response.success).toBe(true);
    deposit = response.payment;
    expect(deposit).toMatchObject({ status: "pending", amount: "10", requiredConfirmations: 2, explorer: { address: `https://explorer.example/address/${deposit.depositAddress}` } });
    expect(deposit.metadata).toEqual({ merchantWalletAddresses: { anvil: merchantWallet }, paymentMethod: "deposit_address", selectedNetwork: "anvil", selectedToken: "USDC" });
    // The wallet payment it replaces stays as it was.
    expect((await sdk.checkPaymentStatus(wallet.id)).payment.status).toBe("pending");
  });

  test("existingPaymentId must be one of the account's payments", async () => {
    for (const existingPaymentId of [crypto.randomUUID(), "not-a-uuid"]) {
      await expect(sdk.createDepositPayment({ amount: "1", currency: "USDC", network: "anvil", existingPaymentId })).rejects.toThrow("invalid_request");
    }
  });

  test("paid: balance from the chain, then completed with the deposit's hash, then the sweep's", async () => {
    const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [deposit.depositAddress, 10_000_000n], account: customer, chain: null });
    await chain.publicClient.waitForTransactionReceipt({ hash });
    expect(await sdk.getDepositBalance(deposit.id)).toMatchObject({ success: true, balance: "10", balanceRaw: "10000000", isComplete: true });
    const completed = await until("completed", () => sdk.getDepositStatus(deposit.id), (s) => s.payment.status === "completed");
    expect(completed).toMatchObject({ success: true, payment: { status: "completed", transactionHash: hash, depositTxHash: hash, isExpired: false } });
    // Also on the payments status path.
    expect((await sdk.checkPaymentStatus(deposit.id)).payment).toMatchObject({ status: "completed", transactionHash: hash });
    const swept = await until("swept", () => sdk.getDepositStatus(deposit.id), (s) => s.payment.sweepTxHash !== null);
    expect(swept.payment.sweepTxHash).toBe(swept.payment.sweeps.find((t: { status: string }) => t.status === "confirmed").transactionHash);
  });
});

describe("the MCP server's agent deposits", () => {
  const mcpCreate = (body: Record<string, unknown>) =>
    fetch(`${base}/api/deposits/create`, { method: "POST", headers: { "Content-Type": "application/json", "x-public-key": merchant.publicKey }, body: JSON.stringify(body) });

  test("agentId and agentOwner are recorded: in the answer, the list and the events", async () => {
    const response = await mcpCreate({ amount: 5, currency: "USDC", network: "anvil", agentId: "shopping-agent-7", agentOwner: "acme_labs", metadata: { task: "buy coffee", items: [1, 2] } });
    expect(response.status).toBe(201);
    const { payment } = await response.json();
    expect(payment).toMatchObject({ agentId: "shopping-agent-7", agentOwner: "acme_labs", metadata: { task: "buy coffee", items: [1, 2] } });
    // Key + secret list live payments only (the spec's rule 3): the sandbox's list is the public key's (rule 4).
    const list = await (await fetch(`${base}/api/payments/merchant/list?limit=100`, { headers: { "x-public-key": merchant.publicKey } })).json();
    expect(list.payments.find((p: { id: string }) => p.id === payment.id)).toMatchObject({ agentId: "shopping-agent-7", agentOwner: "acme_labs" });
    const events = await (await fetch(`${base}/api/events?limit=100`, { headers: { "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret } })).json();
    const created = events.events.find((e: { type: string; paymentId: string }) => e.type === "payment.created" && e.paymentId === payment.id);
    expect(created.data.payment).toMatchObject({ agentId: "shopping-agent-7", agentOwner: "acme_labs" });
  });

  test.each<[string, Record<string, unknown>]>([
    ["an owner with a space", { agentId: "bot", agentOwner: "acme labs" }],
    ["an owner of 101 characters", { agentId: "bot", agentOwner: "a".repeat(101) }],
    ["an owner without an agent", { agentOwner: "acme" }],
  ])("%s: 400 naming agentOwner", async (_name, extra) => {
    const response = await mcpCreate({ amount: 5, currency: "USDC", network: "anvil", ...extra });
    expect(response.status).toBe(400);
    expect((await response.json()).message).toContain("'agentOwner'");
  });

  test("its status tool reads without credentials: 401, as the spec requires", async () => {
    const response = await fetch(`${base}/api/deposits/status/${crypto.randomUUID()}`);
    expect(response.status).toBe(401);
  });
});

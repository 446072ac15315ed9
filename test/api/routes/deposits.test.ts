import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { transfersOutByState } from "../../../db/transfersOutByState.ts";
import { erc20Abi, type Address } from "viem";
import { setSettlementWallet } from "../../../db/settlementWallets.ts";
import { insertTransferOut, updateTransferOut } from "../../../db/transfersOut.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, type PaymentChain } from "../../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../../harness/testApi.ts";

// Without the indexer: what the chain holds is visible before anything is credited.
let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let usdc: Address;

beforeAll(async () => {
  chain = await startPaymentChain();
  usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
}, 60_000);
afterAll(async () => {
  await api?.close();
  await chain?.stop();
});

const headers = () => ({ "x-public-key": merchant.publicKey });
const body = (extra: Record<string, unknown> = {}) => ({ amount: "10", currency: "USDC", network: "anvil", ...extra });

test("the balance endpoint shows funds at the address before they are credited", async () => {
  const created = await api.request("/api/v1/deposits/create", { headers: headers(), body: body({ orderId: "bal-1" }) });
  expect(created.status).toBe(201);
  const { id, depositAddress } = created.body.payment;
  const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [depositAddress, 7_250_000n], account: customer, chain: null });
  await chain.publicClient.waitForTransactionReceipt({ hash });

  const balance = await api.request(`/api/v1/deposits/balance/${id}`, { headers: headers() });
  expect(balance.status).toBe(200);
  expect(balance.body).toMatchObject({
    success: true,
    paymentId: id,
    depositAddress,
    balance: "7.25",
    balanceRaw: "7250000",
    decimals: 6,
    token: "USDC",
    expectedAmount: "10",
    isComplete: false,
    confirmations: 0,
    requiredConfirmations: 3,
    status: "pending",
  });
  const status = await api.request(`/api/v1/deposits/status/${id}`, { headers: headers() });
  expect(status.body.payment).toMatchObject({ status: "pending", amountReceived: "0", amountRemaining: "10", depositAddress });
});

test("deposit creation has its own idempotency scope, and the same validation as payments", async () => {
  const a = await api.request("/api/v1/deposits/create", { headers: { ...headers(), "Idempotency-Key": "shared-key" }, body: body() });
  const b = await api.request("/api/v1/payments/create", { headers: { ...headers(), "Idempotency-Key": "shared-key" }, body: body() });
  const replay = await api.request("/api/deposits/create", { headers: { ...headers(), "Idempotency-Key": "shared-key" }, body: body() });
  expect(a.status).toBe(201);
  expect(b.status).toBe(201);
  expect(b.body.payment.id).not.toBe(a.body.payment.id);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.body.payment.id).toBe(a.body.payment.id);

  const bad = await api.request("/api/v1/deposits/create", { headers: headers(), body: body({ amount: "-5" }) });
  expect(bad.status).toBe(400);
  expect(bad.body.message).toContain("'amount'");
  expect((await api.request("/api/v1/deposits/create", { body: body() })).status).toBe(401);
});

test("the deposit view answers for a contract payment with depositAddress null; unknown ids are a 500", async () => {
  const payment = await api.request("/api/v1/payments/create", { headers: headers(), body: body({ orderId: "contract-1" }) });
  const view = await api.request(`/api/v1/deposits/status/${payment.body.payment.id}`, { headers: headers() });
  expect(view.status).toBe(200);
  expect(view.body.payment).toMatchObject({ depositAddress: null, depositMethod: "settlement_contract", amount: "10", confirmations: 0 });
  const unknown = await api.request("/api/v1/deposits/status/00000000-0000-4000-8000-000000000000", { headers: headers() });
  expect(unknown.status).toBe(500);
  expect(unknown.body.success).toBe(false);
  expect((await api.request("/api/v1/deposits/balance/00000000-0000-4000-8000-000000000000", { headers: headers() })).status).toBe(404);
});

test("/payments/health reports the operator's gas for sweeps", async () => {
  const health = await api.request("/api/v1/payments/health");
  const anvil = health.body.chains.find((c: { network: string }) => c.network === "anvil");
  expect(anvil.operator).toMatchObject({ sufficient: true });
  expect(BigInt(anvil.operator.balance)).toBeGreaterThan(0n);
  expect(anvil.transfers).toEqual({ inFlight: 0, oldestSeconds: null, stuck: false });
});

test("/payments/health counts sweeps in flight per chain and calls one stuck past three replacement rounds", async () => {
  const created = await api.request("/api/v1/deposits/create", { headers: headers(), body: body({ orderId: "health-transfers" }) });
  const row = (await insertTransferOut(api.db, { paymentId: created.body.payment.id, kind: "sweep", chainId: "31337", tokenAddress: usdc, toAddress: merchantWallet, amount: 1n }))!;
  const anvilOf = async () => {
    const health = await api.request("/api/v1/payments/health");
    return { transfers: health.body.chains.find((c: { network: string }) => c.network === "anvil").transfers };
  };
  try {
    const fresh = await anvilOf();
    expect(fresh.transfers).toMatchObject({ inFlight: 1, stuck: false });
    expect(fresh.transfers.oldestSeconds).toBeLessThan(5);

    // TRANSFER_REPLACE_AFTER is 180 s: three rounds are 540 s.
    await api.db.execute(sql`update transfers_out set updated_at = now() - interval '600 seconds' where id = ${row.id}`);
    const stuck = await anvilOf();
    expect(stuck.transfers).toMatchObject({ inFlight: 1, stuck: true });
    expect(stuck.transfers.oldestSeconds).toBeGreaterThanOrEqual(600);

    // BUG: a sent transaction replaced every round (updated_at fresh each time) was never stuck:
    // what counts is how long it has been out.
    await api.db.execute(
      sql`update transfers_out set status = 'broadcast', tx_hash = '0x01', broadcast_at = now() - interval '3600 seconds', updated_at = now() where id = ${row.id}`,
    );
    const replaced = await anvilOf();
    expect(replaced.transfers).toMatchObject({ inFlight: 1, stuck: true });
    expect(replaced.transfers.oldestSeconds).toBeGreaterThanOrEqual(3600);
    const [metric] = await transfersOutByState(api.db, 540);
    expect(metric).toMatchObject({ chainId: "31337", kind: "sweep", inFlight: 1, stuck: 1 });
    expect(metric!.oldestSeconds).toBeGreaterThanOrEqual(3600);
  } finally {
    await updateTransferOut(api.db, row.id, { status: "failed", error: "test row" });
  }
  expect((await anvilOf()).transfers).toEqual({ inFlight: 0, oldestSeconds: null, stuck: false });
});

test("a retry gets its stored answer even after what it depended on changed (the wallet was removed)", async () => {
  const network = api.config.networks.find((n) => n.shortName === "anvil")!;
  const first = await api.request("/api/v1/payments/create", { headers: { ...headers(), "Idempotency-Key": "replay-after-change" }, body: body() });
  expect(first.status).toBe(201);
  await api.db.execute(sql`delete from settlement_wallets where merchant_id = ${merchant.id}`);
  try {
    const retry = await api.request("/api/v1/payments/create", { headers: { ...headers(), "Idempotency-Key": "replay-after-change" }, body: body() });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body).toEqual(first.body);
    const fresh = await api.request("/api/v1/payments/create", { headers: { ...headers(), "Idempotency-Key": "a-new-key" }, body: body() });
    expect(fresh.status).toBe(400);
    expect(fresh.body.message).toContain("settlement wallet");
  } finally {
    await setSettlementWallet(api.db, merchant.id, network.id, merchantWallet);
  }
});

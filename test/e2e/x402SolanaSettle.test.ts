import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKeyPairSignerFromBytes, type KeyPairSigner } from "@solana/kit";
import { getAccount, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { x402Client } from "@x402/core/client";
import type { PaymentRequirements } from "@x402/core/types";
import { ExactSvmScheme as ExactSvmClientScheme } from "@x402/svm/exact/client";
import { eq } from "drizzle-orm";
import { createLogger } from "../../config/logger.ts";
import { findPayment } from "../../db/payments.ts";
import { x402Settlements } from "../../db/schema/index.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { findX402Settlement } from "../../db/x402Settlements.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { x402Settle } from "../../jobs/x402Settle.ts";
import { INDEXED_CHANNEL } from "../../rails/index.ts";
import { startSolanaSubscriber } from "../../rails/solana/ingest/startSolanaSubscriber.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../harness/solanaChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { untilValue } from "../../harness/until.ts";

/**
 * x402's settle-side traps on Solana, on a chain that produces slots only when told: a
 * transfer sent but not confirmed answers `settlement_pending` with its signature (never a
 * failure), and the same settle succeeds once it is confirmed; a worker run again after the
 * transfer landed looks its signature up instead of sending again; a transfer that never went
 * out before its blockhash expired fails for good, and its payment with it.
 */
const TESTNET_GENESIS = "4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NsNY";
const NETWORK = "solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z" as const;
const PRICE = 25_000n;
const VALIDITY_SLOTS = 30;

let solana: SolanaTestChain;
let api: TestApi;
let merchant: TestMerchant;
let subscriber: ReturnType<typeof startSolanaSubscriber>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let customer: KeyPairSigner;
const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

const secret = () => ({ "x-api-key": merchant.testApiKey, "x-api-secret": merchant.testApiSecret });
const env = () => ({ SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey, SOLANA_POLL_INTERVAL_MS: "2000", SOLANA_HEAD_INTERVAL_MS: "50" });

beforeAll(async () => {
  solana = await startSolanaTestChain({ slotMs: 0, finalityDepth: 3, requiredConfirmations: 1, genesisHash: TESTNET_GENESIS, blockhashValiditySlots: VALIDITY_SLOTS });
  // A short wait for the API and for the worker's confirmation: a chain producing no slots answers pending quickly.
  api = await createTestApi({ networks: [solana.network], env: { ...env(), X402_SETTLE_WAIT_MS: "3000", X402_CONFIRMATION_TIMEOUT_MS: "500" } });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "solana-local")!.id, solana.merchant.publicKey.toBase58());
  await solana.chain.mintTo(solana.usdc, solana.merchant.publicKey, 1n);
  solana.chain.advanceSlots(1);
  customer = await createKeyPairSignerFromBytes(solana.customer.secretKey);
  subscriber = startSolanaSubscriber({ config: api.config, db: api.db, logger, channel: INDEXED_CHANNEL });
  await subscriber.ready;
  workers = await startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
}, 120_000);

afterAll(async () => {
  await workers?.close();
  await subscriber?.stop();
  await api?.close();
  await solana?.stop();
});

const requirements = (): PaymentRequirements => ({
  scheme: "exact",
  network: NETWORK,
  asset: solana.usdc.address.toBase58(),
  amount: PRICE.toString(),
  payTo: solana.merchant.publicKey.toBase58(),
  maxTimeoutSeconds: 60,
  extra: { feePayer: solana.operator.publicKey.toBase58() },
});

/** A transfer signed by the official client for the requirements. */
async function signed() {
  const client = x402Client.fromConfig({
    schemes: [{ network: NETWORK, client: new ExactSvmClientScheme(customer, { rpcUrl: solana.chain.rpcUrl }) }],
    spendControls: { allowedAssets: [{ network: NETWORK, asset: solana.usdc.address.toBase58() }] },
  });
  return client.createPaymentPayload({ x402Version: 2, resource: { url: "http://shop.test/report" }, accepts: [requirements()] });
}

const settleOn = (target: TestApi, payload: unknown) => target.request("/api/v1/x402/settle", { headers: secret(), body: { x402Version: 2, paymentPayload: payload, paymentRequirements: requirements() } });
const merchantBalance = () => getAccount(solana.connection, getAssociatedTokenAddressSync(solana.usdc.address, solana.merchant.publicKey, true), "processed").then((a) => a.amount);
const runJob = (settlementId: string) => x402Settle({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl })({ data: { settlementId } } as never);

/** A settle through an API whose prompts reach no worker (a Redis prefix of its own): the row stays as the API wrote it. */
async function strandedSettle(payload: unknown): Promise<string> {
  const stranded = await createTestApi({ database: { url: api.databaseUrl, name: "", drop: async () => {} }, networks: [solana.network], env: { ...env(), X402_SETTLE_WAIT_MS: "200" } });
  try {
    const pending = await settleOn(stranded, payload);
    expect(pending.body).toMatchObject({ success: false, errorReason: "settlement_pending", transaction: "" });
  } finally {
    await stranded.close();
  }
  const [row] = await api.db.select().from(x402Settlements).where(eq(x402Settlements.status, "requested"));
  return row!.id;
}

describe("x402 settle on Solana: an unconfirmed transfer, a run again, an expired one", () => {
  test("sent but not confirmed: pending with the signature, never a failure; confirmed: the same settle succeeds and the payment completes", async () => {
    const payload = await signed();
    const before = await merchantBalance();
    const pending = await settleOn(api, payload);
    expect(pending.status).toBe(200);
    expect(pending.body).toMatchObject({ success: false, errorReason: "settlement_pending", payer: customer.address, network: NETWORK });
    expect(pending.body.transaction).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);

    solana.chain.advanceSlots(1);
    const settled = await untilValue("the settle answered success", () => settleOn(api, payload), (r) => r.body.success === true);
    expect(settled.body).toMatchObject({ success: true, transaction: pending.body.transaction, payer: customer.address });
    expect(await merchantBalance()).toBe(before + PRICE);
    const list = await untilValue(
      "the x402 payment completed",
      async () => {
        solana.chain.advanceSlots(1);
        return (await api.request("/api/v1/payments/merchant/list", { headers: { "x-public-key": merchant.publicKey } })).body.payments as Array<{ status: string; agentId: string }>;
      },
      (payments) => payments.some((p) => p.status === "completed"),
    );
    expect(list.filter((p) => p.agentId === customer.address).length).toBe(1);
  }, 60_000);

  test("a worker run again after its transfer landed looks the signature up and records it: nothing is sent twice", async () => {
    const payload = await signed();
    const first = await settleOn(api, payload);
    solana.chain.advanceSlots(1);
    const settled = await untilValue("the settle answered success", () => settleOn(api, payload), (r) => r.body.success === true);
    const [row] = await api.db.select().from(x402Settlements).where(eq(x402Settlements.txHash, first.body.transaction as string));
    const after = await merchantBalance();
    // As if the worker had died after sending, before recording it.
    await api.db.update(x402Settlements).set({ status: "submitted", blockNumber: null, logIndex: null, credited: null }).where(eq(x402Settlements.id, row!.id));
    solana.chain.advanceSlots(1);
    await runJob(row!.id).catch(() => undefined);
    const again = await findX402Settlement(api.db, row!.id);
    expect(again).toMatchObject({ status: "settled", txHash: settled.body.transaction, credited: PRICE });
    expect(await merchantBalance()).toBe(after);
  }, 60_000);

  test("never sent before its blockhash expired: failed for good, its payment failed, nothing paid", async () => {
    const payload = await signed();
    const settlementId = await strandedSettle(payload);
    solana.chain.advanceSlots(VALIDITY_SLOTS + 2);
    const before = await merchantBalance();
    expect(await runJob(settlementId)).toMatchObject({ status: "failed", reason: "transaction_expired" });
    const row = await findX402Settlement(api.db, settlementId);
    expect(row).toMatchObject({ status: "failed", errorReason: "transaction_expired", txHash: null });
    expect((await findPayment(api.db, row!.paymentId))?.status).toBe("failed");
    expect(await merchantBalance()).toBe(before);
  }, 60_000);
});

import { afterAll, beforeAll, expect, test } from "bun:test";
import { createLogger } from "../../config/logger.ts";
import { findBridgeRequest } from "../../db/bridgeRequests.ts";
import { findPayment } from "../../db/payments.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { startWorkers } from "../../jobs/worker.ts";
import { startLocalRelayer } from "../../rails/bridge/local/index.ts";
import { paymentPayers } from "../../reconcile/index.ts";
import { relayerKey, startBridgeChains, type BridgeChains } from "../../harness/bridgeChains.ts";
import { customer, merchantWallet, operatorKey, startTestIndexer } from "../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";
import { waitUntil } from "../../harness/webhookReceiver.ts";

/**
 * A cross-chain payment's payer is the sender of its deposit on the origin chain (the
 * fill's sender is the bridge's relayer, never the customer). The service holds none of a
 * bridged payment, so no door refunds it: a stranger's request is refused outright.
 */
let chains: BridgeChains;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>>;
let workers: Awaited<ReturnType<typeof startWorkers>>;
let relayer: ReturnType<typeof startLocalRelayer>;
let miner: ReturnType<typeof setInterval>;
const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

beforeAll(async () => {
  chains = await startBridgeChains({ requiredConfirmations: 2 });
  api = await createTestApi({
    env: {
      NETWORKS_FILE: chains.networksFile,
      OPERATOR_PRIVATE_KEY: operatorKey,
      BRIDGE_ADAPTER: "local",
      BRIDGE_LOCAL_RELAYER_KEY: relayerKey,
      BRIDGE_LOCAL_FEE_BPS: "10",
      BRIDGE_LOCAL_CONFIRMATIONS: "1",
      BRIDGE_LOCAL_POLL_MS: "200",
      BRIDGE_POLL_INTERVAL_MS: "300",
    },
  });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
  indexer = await startTestIndexer(api.config, api.databaseUrl, chains.networksFile);
  workers = await startWorkers({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
  relayer = startLocalRelayer({ config: api.config, db: api.db, logger, databaseUrl: api.databaseUrl });
  await relayer.ready;
  miner = setInterval(() => void chains.destination.mine(1).catch(() => {}), 400);
}, 180_000);

afterAll(async () => {
  clearInterval(miner);
  const bounded = (p: Promise<unknown> | undefined) => Promise.race([p, Bun.sleep(15_000)]);
  await bounded(relayer?.stop());
  await bounded(workers?.close());
  await bounded(indexer?.stop());
  await bounded(api?.close());
  await bounded(chains?.stop());
});

test("the payer of a bridged payment is its origin deposit's sender; no refund door sends anything from it", async () => {
  const created = await api.request("/api/v1/payments/cross-chain/create", {
    headers: { "x-public-key": merchant.publicKey },
    body: { amount: "3", originChainId: 31338, originCurrency: "USDC", orderId: "bridge-payer" },
  });
  expect(created.status).toBe(201);
  const payment = created.body.payment as { id: string; relayDepositAddress: `0x${string}`; amountToSend: string };
  await chains.pay("USDC", payment.relayDepositAddress, BigInt(payment.amountToSend));
  await chains.origin.mine(1);
  await waitUntil("completed", async () => ((await findPayment(api.db, payment.id))?.status === "completed" ? true : undefined), 60_000);

  expect((await findBridgeRequest(api.db, payment.id))!.depositSenders).toEqual([customer.address]);
  const payers = await paymentPayers({ config: api.config, db: api.db, logger }, (await findPayment(api.db, payment.id))!);
  expect(payers).toEqual({ byAddress: new Map([[customer.address, 3_000_000n]]), unknown: 0n });

  const stranger = "0x00000000000000000000000000000000000000e7";
  for (const body of [{ address: stranger }, {}]) {
    const refused = await api.request(`/api/v1/payments/public/${payment.id}/refund-request`, { body });
    expect([refused.status, refused.body.error]).toEqual([409, "refund_not_held"]);
  }
}, 90_000);

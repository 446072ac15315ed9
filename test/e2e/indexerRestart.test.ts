import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { erc20Abi, type Address } from "viem";
import { queryRows } from "../../db/client.ts";
import { findPayment } from "../../db/payments.ts";
import { setSettlementWallet } from "../../db/settlementWallets.ts";
import { indexedBlocks } from "../../rails/evm/readModel/indexedBlocks.ts";
import { INDEXED_TABLES } from "../../rails/evm/readModel/tables.ts";
import { reconcilePayments } from "../../reconcile/index.ts";
import { customer, merchantWallet, operatorKey, startPaymentChain, startTestIndexer, type PaymentChain } from "../../harness/paymentChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../harness/testApi.ts";

/**
 * A restarted indexer (a redeploy, a crash) deletes every row above its last final block
 * and reads those blocks again, while its `latest_checkpoint` still names the block the
 * last run reached (Ponder's crash recovery). A payment completed in such a block must
 * stay completed throughout — no `payment.reverted`, no second `payment.completed` — however
 * often it is reconciled while the indexer re-reads.
 */
let chain: PaymentChain;
let api: TestApi;
let merchant: TestMerchant;
let indexer: Awaited<ReturnType<typeof startTestIndexer>> | undefined;

beforeAll(async () => {
  chain = await startPaymentChain({ requiredConfirmations: 2 });
  api = await createTestApi({ env: { NETWORKS_FILE: chain.networksFile, OPERATOR_PRIVATE_KEY: operatorKey } });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, api.config.networks.find((n) => n.shortName === "anvil")!.id, merchantWallet);
  indexer = await startTestIndexer(api.config, api.databaseUrl, chain.networksFile);
}, 120_000);

afterAll(async () => {
  await indexer?.stop();
  await api?.close();
  await chain?.stop();
});

const headers = () => ({ "x-public-key": merchant.publicKey });
const eventsOf = async (id: string) =>
  (await queryRows<{ type: string }>(api.db, sql`select type from payment_events where payment_id = ${id} order by sequence`)).map((e) => e.type);
const checkpoint = async () => {
  const [row] = await queryRows<{ safe: string; latest: string }>(api.db, sql`
    select substring(safe_checkpoint from 27 for 16)::bigint::text as safe, substring(latest_checkpoint from 27 for 16)::bigint::text as latest
    from ${sql.identifier(api.config.indexer.viewsSchema)}.${sql.identifier(INDEXED_TABLES.checkpoint)} where chain_id = 31337`);
  return { safe: BigInt(row!.safe), latest: BigInt(row!.latest) };
};

test("an indexer restart re-reads the block that completed a payment: the payment stays completed, its events are not repeated", async () => {
  const created = await api.request("/api/v1/deposits/create", { headers: headers(), body: { amount: "2", currency: "USDC", network: "anvil", orderId: crypto.randomUUID() } });
  expect(created.status).toBe(201);
  const payment = created.body.payment as { id: string; depositAddress: Address };
  const usdc = chain.tokens.find((t) => t.symbol === "USDC")!.address;
  const hash = await chain.customerWallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "transfer", args: [payment.depositAddress, 2_000_000n], account: customer, chain: null });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  await chain.rpc("evm_mine");

  for (const deadline = Date.now() + 30_000; (await findPayment(api.db, payment.id))!.status !== "completed"; await Bun.sleep(50)) {
    if (Date.now() > deadline) throw new Error("the payment never completed");
    await reconcilePayments(api.db, api.config, [payment.id]);
  }
  const completed = (await findPayment(api.db, payment.id))!;
  const told = await eventsOf(payment.id);
  expect(told.filter((e) => e === "payment.completed")).toHaveLength(1);
  // The completing block is above the indexer's last final block: a restart deletes its rows.
  expect((await checkpoint()).safe).toBeLessThan(completed.completingBlock!);

  await indexer!.stop();
  indexer = undefined;
  // Restarted; the payment is reconciled all along, as the workers' recheck and dispatch would.
  let rereadSeen = 0;
  const statusesSeen = new Set<string>();
  let ready = false;
  const restarting = startTestIndexer(api.config, api.databaseUrl, chain.networksFile).finally(() => (ready = true));
  while (!ready) {
    const heads = await indexedBlocks(api.db, api.config.indexer.viewsSchema);
    if (heads.rereading?.has("31337")) rereadSeen++;
    // A read of Ponder's tables can meet its start-up migration: the reconcile gives way (55P03, or
    // 40P01 where it waited first), that run fails as a job would, the next one goes on; the indexer lives.
    const run = await reconcilePayments(api.db, api.config, [payment.id]).catch((error: { errno?: string; cause?: { errno?: string } }) => {
      if (["55P03", "40P01"].includes(error.cause?.errno ?? error.errno ?? "")) return null;
      throw error;
    });
    if (run) statusesSeen.add(run.get(payment.id)!.after.status);
    await Bun.sleep(20);
  }
  indexer = await restarting;
  expect([...statusesSeen]).toEqual(["completed"]);
  // The window was really there: the indexer was re-reading while the payment was reconciled.
  expect(rereadSeen).toBeGreaterThan(0);

  await reconcilePayments(api.db, api.config, [payment.id]);
  expect((await findPayment(api.db, payment.id))!).toMatchObject({ status: "completed", completingBlock: completed.completingBlock, amountReceived: 2_000_000n });
  expect(await eventsOf(payment.id)).toEqual(told);
}, 180_000);

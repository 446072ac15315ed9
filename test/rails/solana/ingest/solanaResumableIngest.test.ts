import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { Connection } from "@solana/web3.js";
import { createLogger } from "../../../../config/logger.ts";
import { queryRows } from "../../../../db/client.ts";
import { setSettlementWallet } from "../../../../db/settlementWallets.ts";
import { renderMetrics } from "../../../../metrics/registry.ts";
import { INDEXED_CHANNEL } from "../../../../rails/index.ts";
import { startChainSubscriber } from "../../../../rails/solana/ingest/chainSubscriber.ts";
import { addressCursor } from "../../../../rails/solana/ingest/recordCredits.ts";
import { unfinishedListing } from "../../../../rails/solana/ingest/addressScans.ts";
import { scanAddress } from "../../../../rails/solana/ingest/scanAddress.ts";
import { paymentsToWatch } from "../../../../rails/solana/readModel/watchList.ts";
import { watchOf } from "../../../../rails/solana/watchedAccount.ts";
import { reconcilePayments } from "../../../../reconcile/index.ts";
import { rewritingRpcProxy, type RpcAnswer } from "../../../../harness/rewritingRpcProxy.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../../../harness/solanaChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../../../harness/testApi.ts";

/**
 * Issue 44.3: Solana ingest that resumes and cannot be held hostage. A listing of several
 * pages keeps each page it recorded and resumes at the one it failed on; an account whose
 * scans fail holds back only its own payment's expiry, says so on /payments/health and in
 * a metric, and the chain's other payments expire as usual.
 */
let solana: SolanaTestChain;
let api: TestApi;
let merchant: TestMerchant;
const logger = createLogger({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

beforeAll(async () => {
  solana = await startSolanaTestChain({ finalityDepth: 4 });
  api = await createTestApi({
    networks: [solana.network],
    env: { SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey, SOLANA_POLL_INTERVAL_MS: "600000", SOLANA_HEAD_INTERVAL_MS: "50", SOLANA_WS_STALE_MS: "600000" },
  });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, network().id, solana.merchant.publicKey.toBase58());
}, 60_000);

afterAll(async () => {
  await api?.close();
  await solana?.stop();
});

const network = () => api.config.networks.find((n) => n.shortName === "solana-local")!;
const headers = () => ({ "x-public-key": merchant.publicKey });

async function createDeposit(amount: string) {
  const response = await api.request("/api/v1/deposits/create", { headers: headers(), body: { amount, currency: "USDC", network: "solana-local", orderId: crypto.randomUUID() } });
  expect(response.status).toBe(201);
  const payment = response.body.payment as { id: string; depositAddress: string; receiveAddress?: string };
  const row = (await paymentsToWatch(api.db, network().chainId, { afterCloseMs: 0, everyPollAfterCloseMs: 0 })).find((p) => p.id === payment.id)!;
  return { id: payment.id, address: payment.receiveAddress ?? payment.depositAddress, watch: watchOf(network(), row) };
}

const creditsOf = async (id: string) =>
  (await queryRows<{ signature: string }>(api.db, sql`select signature from solana_credits where payment_id = ${id} order by slot`)).map((r) => r.signature);

async function statusOf(id: string) {
  await reconcilePayments(api.db, api.config, [id]);
  const response = await api.request(`/api/v1/deposits/status/${id}`, { headers: headers() });
  expect(response.status).toBe(200);
  return response.body.payment.status as string;
}

const failure = (answer: RpcAnswer) => ({ jsonrpc: "2.0", id: answer.id, error: { code: -32005, message: "Node is unhealthy" } }) as never;

describe("a listing of several pages", () => {
  test("failing on page 2 keeps page 1's credits and resumes from page 2, then moves the cursor to the newest", async () => {
    const deposit = await createDeposit("5");
    const signatures: string[] = [];
    for (let i = 0; i < 5; i++) signatures.push(await solana.pay({ to: deposit.address, amount: 1_000_000n })); // a slot each, oldest first
    let failPagesAfterFirst = true;
    const listings: Array<{ before?: string }> = [];
    let statusCalls = 0;
    const proxy = rewritingRpcProxy(solana.chain.rpcUrl, (call, answer) => {
      if (call.method === "getSignatureStatuses") statusCalls++;
      if (call.method !== "getSignaturesForAddress") return answer;
      const options = (call.params?.[1] ?? {}) as { before?: string };
      listings.push({ before: options.before });
      return failPagesAfterFirst && options.before !== undefined ? failure(answer) : answer;
    });
    try {
      const deps = { db: api.db, connection: new Connection(proxy.url, "confirmed"), chainId: network().chainId, channel: INDEXED_CHANNEL, pageSize: 2 };
      await expect(scanAddress(deps, deposit.watch, "poll")).rejects.toThrow("Node is unhealthy");
      // Page 1 (the two newest) is recorded; the listing is kept, standing below page 1.
      expect(await creditsOf(deposit.id)).toEqual(signatures.slice(3));
      expect(await addressCursor(api.db, network().chainId, deposit.watch.scan)).toBeNull();
      expect(await unfinishedListing(api.db, network().chainId, deposit.watch.scan)).toMatchObject({ until: null, top: { signature: signatures[4] }, before: { signature: signatures[3] } });

      failPagesAfterFirst = false;
      listings.length = 0;
      expect(await scanAddress(deps, deposit.watch, "poll")).toEqual({ inserted: 3, complete: true });
      // The first call of the next pass is page 2, not page 1 again.
      expect(listings[0]).toEqual({ before: signatures[3] });
      expect(await creditsOf(deposit.id)).toEqual(signatures);
      expect(await addressCursor(api.db, network().chainId, deposit.watch.scan)).toBe(signatures[4]!);
      expect(await unfinishedListing(api.db, network().chainId, deposit.watch.scan)).toBeNull();

      // A further transfer is listed from the cursor: nothing read twice.
      const later = await solana.pay({ to: deposit.address, amount: 1_000_000n });
      expect(await scanAddress(deps, deposit.watch, "poll")).toEqual({ inserted: 1, complete: true });
      expect(await creditsOf(deposit.id)).toEqual([...signatures, later]);
      // Credits above the finalized watermark are left to the finality pass: no status call per scan.
      expect(statusCalls).toBe(0);
    } finally {
      proxy.stop();
    }
  });
});

describe("an account whose scans keep failing", () => {
  test("holds back only its own payment: another payment on the chain expires; health and the metric say one is held", async () => {
    let failing: string | null = null;
    const proxy = rewritingRpcProxy(solana.chain.rpcUrl, (call, answer) =>
      call.method === "getSignaturesForAddress" && call.params?.[0] === failing ? failure(answer) : answer,
    );
    const subscriber = startChainSubscriber({ config: api.config, db: api.db, logger, network: { ...network(), rpcUrl: proxy.url }, channel: INDEXED_CHANNEL, websocket: false });
    try {
      await subscriber.ready;
      const hostage = await createDeposit("3");
      const other = await createDeposit("4");
      await subscriber.poll(); // both watched and read through
      failing = hostage.watch.scan; // e.g. a Solana Pay reference spammed with junk transactions
      // Both windows close now, and the chain moves past them.
      await api.db.execute(sql`update payments set expires_at = now() where id in (${hostage.id}, ${other.id})`);
      await Bun.sleep(1100);
      solana.chain.advanceSlots(2);
      await subscriber.poll();

      const [head] = await queryRows<{ through: Date; expires: Date }>(api.db, sql`
        select h.evidence_through as through, p.expires_at as expires from solana_ingest_heads h, payments p where h.chain_id = ${network().chainId} and p.id = ${other.id}`);
      expect(new Date(head!.through).getTime()).toBeGreaterThanOrEqual(new Date(head!.expires).getTime());
      expect(await statusOf(other.id)).toBe("expired");
      // Nothing says the hostage's account was read past its deadline: it waits.
      expect(await statusOf(hostage.id)).toBe("pending");
      expect(subscriber.held()).toBe(1);
      expect(await renderMetrics()).toContain(`stablepay_solana_payments_held{network="solana-local"} 1`);
      const health = await api.request("/api/v1/payments/health");
      expect(health.status).toBe(200);
      expect(health.body.chains.find((c: { network: string }) => c.network === "solana-local").heldPayments).toBe(1);

      // The account reads again: its payment expires too, and nothing is held.
      failing = null;
      solana.chain.advanceSlots(2);
      await subscriber.poll();
      expect(await statusOf(hostage.id)).toBe("expired");
      expect(subscriber.held()).toBe(0);
      expect((await api.request("/api/v1/payments/health")).body.chains.find((c: { network: string }) => c.network === "solana-local").heldPayments).toBe(0);
    } finally {
      await subscriber.stop();
      proxy.stop();
    }
  });
});

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createLogger } from "../../../../config/logger.ts";
import { queryRows } from "../../../../db/client.ts";
import { setSettlementWallet } from "../../../../db/settlementWallets.ts";
import { INDEXED_CHANNEL } from "../../../../rails/index.ts";
import { BatchingConnection } from "../../../../rails/solana/batchingConnection.ts";
import { advanceFinality } from "../../../../rails/solana/ingest/advanceFinality.ts";
import { startChainSubscriber } from "../../../../rails/solana/ingest/chainSubscriber.ts";
import { addressCursor } from "../../../../rails/solana/ingest/recordCredits.ts";
import { scanAddresses } from "../../../../rails/solana/ingest/scanAddresses.ts";
import { paymentsToWatch } from "../../../../rails/solana/readModel/watchList.ts";
import { watchOf } from "../../../../rails/solana/watchedAccount.ts";
import { rewritingRpcProxy, type RpcAnswer, type RpcCall } from "../../../../harness/rewritingRpcProxy.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../../../harness/solanaChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../../../harness/testApi.ts";

/**
 * Issue 44.3: a burst of paid accounts is read in batches — every account's signature
 * listing in one JSON-RPC batch, their transactions in another, the statuses in one call,
 * the credits in one database transaction — and each is credited exactly once. A batch the
 * node fails is tried account by account: the account whose listing or transaction the
 * node refuses fails alone, and the next pass credits it, nothing lost or doubled.
 */
let solana: SolanaTestChain;
let api: TestApi;
let merchant: TestMerchant;

beforeAll(async () => {
  solana = await startSolanaTestChain({ finalityDepth: 4 });
  api = await createTestApi({
    networks: [solana.network],
    env: { SOLANA_OPERATOR_SECRET_KEY: solana.operatorSecretKey, SOLANA_POLL_INTERVAL_MS: "600000", SOLANA_HEAD_INTERVAL_MS: "60000", SOLANA_WS_STALE_MS: "600000" },
  });
  merchant = await api.seedMerchant();
  await setSettlementWallet(api.db, merchant.id, network().id, solana.merchant.publicKey.toBase58());
}, 60_000);

afterAll(async () => {
  await api?.close();
  await solana?.stop();
});

const network = () => api.config.networks.find((n) => n.shortName === "solana-local")!;

/** `count` deposits, each paid once (amounts 1.000001, 1.000002, …: each credit is told apart). */
async function paidDeposits(count: number) {
  const deposits = [];
  for (let i = 0; i < count; i++) {
    const response = await api.request("/api/v1/deposits/create", {
      headers: { "x-public-key": merchant.publicKey },
      body: { amount: "1", currency: "USDC", network: "solana-local", orderId: crypto.randomUUID() },
    });
    expect(response.status).toBe(201);
    deposits.push(response.body.payment as { id: string; depositAddress: string });
  }
  const watched = await paymentsToWatch(api.db, network().chainId, { afterCloseMs: 0, everyPollAfterCloseMs: 0 });
  const paid = [];
  for (const [i, deposit] of deposits.entries()) {
    const amount = 1_000_000n + BigInt(i + 1);
    const signature = await solana.pay({ to: deposit.depositAddress, amount });
    paid.push({ id: deposit.id, watch: watchOf(network(), watched.find((p) => p.id === deposit.id)!), signature, amount });
  }
  return paid;
}

/** The chain's finalized watermark moved past the payments: each credit's status must be asked before it is stored. */
async function finalizePast() {
  solana.chain.finalize();
  await advanceFinality({ db: api.db, connection: solana.connection, chainId: network().chainId, channel: INDEXED_CHANNEL });
}

const creditsOf = async (ids: string[]) =>
  queryRows<{ payment_id: string; signature: string; amount: string; finalized: boolean }>(api.db, sql`
    select payment_id, signature, amount::text, finalized from solana_credits where payment_id = any(${sql.param(ids)}::uuid[]) and removed_at is null`);

/** Each HTTP request's calls, by method. */
function requestLog() {
  const requests: RpcCall[][] = [];
  return {
    onRequest: (calls: RpcCall[]) => void requests.push(calls),
    of: (method: string) => requests.filter((calls) => calls.some((c) => c.method === method)),
    clear: () => void (requests.length = 0),
  };
}

const refused = (answer: RpcAnswer) => ({ jsonrpc: "2.0", id: answer.id, error: { code: -32005, message: "Node is unhealthy" } }) as never;

describe("a burst of paid accounts", () => {
  test("is read in batched calls and credited exactly once each", async () => {
    const paid = await paidDeposits(40);
    await finalizePast();
    const log = requestLog();
    const proxy = rewritingRpcProxy(solana.chain.rpcUrl, (_call, answer) => answer, { onRequest: log.onRequest });
    try {
      const deps = { db: api.db, connection: new BatchingConnection(proxy.url, "confirmed"), chainId: network().chainId, channel: INDEXED_CHANNEL };
      const requests = paid.map((p) => ({ watch: p.watch, foundBy: "poll" as const }));
      expect(await scanAddresses(deps, requests)).toEqual(paid.map(() => ({ inserted: 1, complete: true })));
      // Their 40 listings in one HTTP request, their 40 transactions in another, their 40 statuses in one call.
      expect(log.of("getSignaturesForAddress").map((calls) => calls.length)).toEqual([40]);
      expect(log.of("getTransaction").map((calls) => calls.length)).toEqual([40]);
      expect(log.of("getSignatureStatuses").map((calls) => (calls[0]!.params![0] as string[]).length)).toEqual([40]);

      const credits = await creditsOf(paid.map((p) => p.id));
      expect(credits.map((c) => [c.payment_id, c.signature, c.amount, c.finalized]).sort()).toEqual(paid.map((p) => [p.id, p.signature, p.amount.toString(), true]).sort());
      for (const p of paid) expect(await addressCursor(api.db, network().chainId, p.watch.scan)).toBe(p.signature);

      // Read again: nothing new, nothing fetched, nothing doubled.
      log.clear();
      expect(await scanAddresses(deps, requests)).toEqual(paid.map(() => ({ inserted: 0, complete: true })));
      expect(log.of("getTransaction")).toEqual([]);
      expect(await creditsOf(paid.map((p) => p.id))).toHaveLength(40);
    } finally {
      proxy.stop();
    }
  });

  test("the subscriber's poll credits them through the batches, once each", async () => {
    const log = requestLog();
    const proxy = rewritingRpcProxy(solana.chain.rpcUrl, (_call, answer) => answer, { onRequest: log.onRequest });
    const subscriber = startChainSubscriber({
      config: api.config,
      db: api.db,
      logger: createLogger({ level: "silent" }),
      network: { ...network(), rpcUrl: proxy.url },
      channel: INDEXED_CHANNEL,
      websocket: false,
    });
    try {
      // Its first finality pass and poll are done before the payments: no watermark moves under this poll.
      await subscriber.ready;
      const paid = await paidDeposits(25);
      log.clear();
      await subscriber.poll();
      expect(subscriber.found().poll).toBe(25);
      expect(subscriber.held()).toBe(0);
      // One pass over every watched account: the 25 new transactions in one request.
      expect(log.of("getTransaction").map((calls) => calls.length)).toEqual([25]);
      expect((await creditsOf(paid.map((p) => p.id))).map((c) => c.signature).sort()).toEqual(paid.map((p) => p.signature).sort());
    } finally {
      await subscriber.stop();
      proxy.stop();
    }
  });
});

describe("a batch the node fails", () => {
  test("is tried account by account: the refused one fails alone, and the next pass credits it; nothing lost or doubled", async () => {
    const paid = await paidDeposits(10);
    const poisoned = paid[3]!;
    let refuse: "one" | "all" | "none" = "one";
    let refuseListing = false;
    const log = requestLog();
    const proxy = rewritingRpcProxy(
      solana.chain.rpcUrl,
      (call, answer) =>
        (call.method === "getTransaction" && (refuse === "all" || (refuse === "one" && call.params?.[0] === poisoned.signature))) ||
        (call.method === "getSignaturesForAddress" && refuseListing && call.params?.[0] === poisoned.watch.scan)
          ? refused(answer)
          : answer,
      { onRequest: log.onRequest },
    );
    try {
      const deps = { db: api.db, connection: new BatchingConnection(proxy.url, "confirmed"), chainId: network().chainId, channel: INDEXED_CHANNEL };
      const requests = paid.map((p) => ({ watch: p.watch, foundBy: "poll" as const }));
      const ids = paid.map((p) => p.id);

      // The whole node refuses: every account fails, nothing is recorded, no cursor moves.
      refuse = "all";
      const failed = await scanAddresses(deps, requests);
      expect(failed.every((r) => r instanceof Error && r.message.includes("Node is unhealthy"))).toBe(true);
      expect(await creditsOf(ids)).toEqual([]);
      for (const p of paid) expect(await addressCursor(api.db, network().chainId, p.watch.scan)).toBeNull();

      // One transaction refused: the batch fails, then each account alone; only the poisoned one fails.
      refuse = "one";
      log.clear();
      const results = await scanAddresses(deps, requests);
      expect(log.of("getTransaction").map((calls) => calls.length)).toEqual([10, ...paid.map(() => 1)]);
      results.forEach((r, i) => (paid[i] === poisoned ? expect(r).toBeInstanceOf(Error) : expect(r).toEqual({ inserted: 1, complete: true })));
      expect((await creditsOf(ids)).map((c) => c.signature).sort()).toEqual(paid.filter((p) => p !== poisoned).map((p) => p.signature).sort());
      expect(await addressCursor(api.db, network().chainId, poisoned.watch.scan)).toBeNull();

      // Its listing refused too: listed alone once more, it fails alone again; the others have nothing new.
      refuseListing = true;
      log.clear();
      const relisted = await scanAddresses(deps, requests);
      expect(log.of("getSignaturesForAddress").map((calls) => calls.length)).toEqual([10, 1]);
      relisted.forEach((r, i) => (paid[i] === poisoned ? expect(r).toBeInstanceOf(Error) : expect(r).toEqual({ inserted: 0, complete: true })));

      // The node serves it again: the next pass credits the poisoned account, and no other twice.
      refuseListing = false;
      refuse = "none";
      expect(await scanAddresses(deps, requests)).toEqual(paid.map((p) => ({ inserted: p === poisoned ? 1 : 0, complete: true })));
      const credits = await creditsOf(ids);
      expect(credits.map((c) => [c.payment_id, c.signature, c.amount]).sort()).toEqual(paid.map((p) => [p.id, p.signature, p.amount.toString()]).sort());
    } finally {
      proxy.stop();
    }
  });
});

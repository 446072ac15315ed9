import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { TOKEN_PROGRAM_ID, createTransferCheckedInstruction, getAssociatedTokenAddressSync } from "@solana/spl-token";
import { Connection, Keypair, PublicKey, Transaction } from "@solana/web3.js";
import { base58 } from "@scure/base";
import { createLogger } from "../../../../config/logger.ts";
import { queryRows } from "../../../../db/client.ts";
import { setSettlementWallet } from "../../../../db/settlementWallets.ts";
import { renderMetrics } from "../../../../metrics/registry.ts";
import { INDEXED_CHANNEL } from "../../../../rails/index.ts";
import { advanceFinality } from "../../../../rails/solana/ingest/advanceFinality.ts";
import { startChainSubscriber, type ChainSubscriber } from "../../../../rails/solana/ingest/chainSubscriber.ts";
import { addressCursor, recordCredits } from "../../../../rails/solana/ingest/recordCredits.ts";
import { scanAddress } from "../../../../rails/solana/ingest/scanAddress.ts";
import { paymentsToWatch } from "../../../../rails/solana/readModel/watchList.ts";
import { watchOf } from "../../../../rails/solana/watchedAccount.ts";
import { reconcilePayments } from "../../../../reconcile/index.ts";
import { startSolanaTestChain, type SolanaTestChain } from "../../../../harness/solanaChain.ts";
import { createTestApi, type TestApi, type TestMerchant } from "../../../../harness/testApi.ts";
import { laggingBeforeNode } from "../../../../harness/laggingBeforeNode.ts";
import { rewritingRpcProxy as rewritingProxy } from "../../../../harness/rewritingRpcProxy.ts";

/**
 * The Solana rail's ingest against a real SVM through the loopback RPC and an
 * unmodified web3.js Connection, on a real Postgres: deposits (exact, partial, over,
 * late, expired), Solana Pay by reference, verify-qr and /payments/process looking for
 * themselves, the websocket and the poller finding the same transfer once, and
 * completion waiting for `finalized`. Slots advance only when a test says so.
 */
let solana: SolanaTestChain;
let api: TestApi;
let merchant: TestMerchant;
let subscriber: ChainSubscriber;
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
  await subscriber?.stop();
  await api?.close();
  await solana?.stop();
});

const network = () => api.config.networks.find((n) => n.shortName === "solana-local")!;
const headers = () => ({ "x-public-key": merchant.publicKey });
const usdc = () => solana.usdc.address.toBase58();

async function create(path: "/api/v1/deposits/create" | "/api/v1/payments/create", amount: string, extra: Record<string, unknown> = {}) {
  // Each one a new payment: the same body twice would be an idempotent replay.
  const response = await api.request(path, { headers: headers(), body: { amount, currency: "USDC", network: "solana-local", orderId: crypto.randomUUID(), ...extra } });
  expect(response.status).toBe(201);
  const payment = response.body.payment;
  return { ...payment, receiveAddress: payment.receiveAddress ?? payment.depositAddress } as { id: string; receiveAddress: string; paymentUri: string; solanaPay: { reference: string | null; recipientTokenAccount: string } };
}

async function status(id: string) {
  await reconcilePayments(api.db, api.config, [id]);
  if (process.env.DEBUG_SOLANA) console.log(id, await queryRows(api.db, sql`select payment_id, account, amount::text, found_by from solana_credits order by seq`));
  const response = await api.request(`/api/v1/deposits/status/${id}`, { headers: headers() });
  expect(response.status).toBe(200);
  return response.body.payment as { status: string; amountReceived: string; amountRemaining: string; excessOwed: string; lateAmount: string; confirmations: number };
}

const creditsOf = (id: string) =>
  queryRows<{ signature: string; amount: string; found_by: string; finalized: boolean }>(api.db, sql`select signature, amount::text, found_by, finalized from solana_credits where payment_id = ${id} order by slot`);

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined && value !== false) return value as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

/** Finalizes everything so far and waits until the subscriber's watermark has passed it. */
async function finalize() {
  const slot = BigInt(solana.chain.finalize());
  await until("the finalized watermark", async () => {
    const [row] = await queryRows<{ f: string }>(api.db, sql`select finalized_slot::text as f from solana_ingest_heads where chain_id = ${network().chainId}`);
    return row && BigInt(row.f) >= slot - BigInt(solana.chain.finalityDepth) ? true : undefined;
  });
}

describe("without a subscriber: verify-qr and /payments/process look for themselves", () => {
  test("verify-qr finds a Solana Pay transfer by its reference", async () => {
    const payment = await create("/api/v1/payments/create", "5");
    expect(payment.receiveAddress).toBe(solana.merchant.publicKey.toBase58());
    const uri = new URL(payment.paymentUri);
    expect(payment.paymentUri.startsWith(`solana:${solana.merchant.publicKey.toBase58()}?`)).toBe(true);
    expect(uri.searchParams.get("amount")).toBe("5");
    expect(uri.searchParams.get("spl-token")).toBe(usdc());
    const reference = uri.searchParams.get("reference")!;
    expect(reference).toBe(payment.solanaPay.reference!);

    const before = await api.request("/api/v1/payments/verify-qr", { headers: headers(), body: { paymentId: payment.id } });
    expect(before.body).toMatchObject({ success: true, verified: false, error: "payment_not_found_onchain" });
    const signature = await solana.pay({ to: solana.merchant.publicKey, amount: 5_000_000n, reference });
    const after = await api.request("/api/v1/payments/verify-qr", { headers: headers(), body: { paymentId: payment.id } });
    expect(after.body).toMatchObject({ success: true, verified: true, payment: { status: "confirming", amountReceived: "5", transactionHash: signature } });
    expect(await creditsOf(payment.id)).toEqual([{ signature, amount: "5000000", found_by: "lookup", finalized: false }]);
    // Paid to the merchant's own wallet: no deposit address whose balance could be the payment's (not a made-up "0").
    const balance = await api.request(`/api/v1/deposits/balance/${payment.id}`, { headers: headers() });
    expect(balance.status).toBe(404);
    expect(balance.body).toMatchObject({ success: false, error: "not_found" });
  });

  test("a transfer to the merchant without the reference, or with it to another account, pays nothing", async () => {
    const payment = await create("/api/v1/payments/create", "3");
    const reference = payment.solanaPay.reference!;
    await solana.pay({ to: solana.merchant.publicKey, amount: 3_000_000n });
    await solana.pay({ to: Keypair.generate().publicKey, amount: 3_000_000n, reference });
    const answer = await api.request("/api/v1/payments/verify-qr", { headers: headers(), body: { paymentId: payment.id } });
    expect(answer.body).toMatchObject({ verified: false, error: "payment_not_found_onchain" });
    expect(await creditsOf(payment.id)).toEqual([]);
  });

  test("/payments/process takes a signature, and refuses an EVM hash or a transaction that pays something else", async () => {
    const deposit = await create("/api/v1/deposits/create", "10");
    const other = await solana.pay({ to: Keypair.generate().publicKey, amount: 1_000_000n });
    const wrong = await api.request("/api/v1/payments/process", { headers: headers(), body: { paymentId: deposit.id, txHash: other } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toContain("txHash");
    const evm = await api.request("/api/v1/payments/process", { headers: headers(), body: { paymentId: deposit.id, txHash: `0x${"ab".repeat(32)}` } });
    expect(evm.status).toBe(400);
    expect(evm.body.message).toContain("txHash");
    expect(evm.body.message).toContain("signature");

    const signature = await solana.pay({ to: deposit.receiveAddress, amount: 10_000_000n });
    const processed = await api.request("/api/v1/payments/process", { headers: headers(), body: { paymentId: deposit.id, txHash: signature } });
    expect(processed.status).toBe(200);
    expect(processed.body.payment).toMatchObject({ status: "confirming", amountReceived: "10", transactionHash: signature });
    const again = await api.request("/api/v1/payments/process", { headers: headers(), body: { paymentId: deposit.id, txHash: signature } });
    expect(again.body.payment.amountReceived).toBe("10");
    expect((await creditsOf(deposit.id)).length).toBe(1);
  });
});

describe("Helius webhooks only prompt the same scan", () => {
  test("a delivery without our authHeader is refused; one with it makes the subscriber look at the named deposit", async () => {
    const { serveHeliusWebhook } = await import("../../../../rails/solana/ingest/serveHeliusWebhook.ts");
    const quiet = startChainSubscriber({ config: api.config, db: api.db, logger, network: network(), channel: INDEXED_CHANNEL, websocket: false });
    const authHeader = "Bearer helius-test-secret-0123456789";
    const receiver = serveHeliusWebhook({ host: "127.0.0.1", port: 0, authHeader, logger, onAddresses: (a) => void quiet.prompt(a, "webhook") });
    try {
      await quiet.ready;
      const deposit = await create("/api/v1/deposits/create", "7.5");
      const signature = await solana.pay({ to: deposit.receiveAddress, amount: 7_500_000n });
      const depositAta = getAssociatedTokenAddressSync(solana.usdc.address, new PublicKey(deposit.receiveAddress), true).toBase58();
      const fixture = (await Bun.file(new URL("../../../fixtures/helius/enhanced-token-transfer.json", import.meta.url)).text())
        .replaceAll("{{CUSTOMER}}", solana.customer.publicKey.toBase58())
        .replaceAll("{{CUSTOMER_TOKEN_ACCOUNT}}", getAssociatedTokenAddressSync(solana.usdc.address, solana.customer.publicKey).toBase58())
        .replaceAll("{{DEPOSIT_TOKEN_ACCOUNT}}", depositAta)
        .replaceAll("{{DEPOSIT_OWNER}}", deposit.receiveAddress)
        .replaceAll("{{MINT}}", usdc())
        .replaceAll("{{SIGNATURE}}", signature);
      const post = (authorization?: string) =>
        fetch(`http://127.0.0.1:${receiver.port}/`, { method: "POST", headers: { "content-type": "application/json", ...(authorization ? { authorization } : {}) }, body: fixture });
      expect((await post()).status).toBe(401);
      expect((await post("Bearer wrong-secret-wrong-secret!")).status).toBe(401);
      await Bun.sleep(200);
      expect(await creditsOf(deposit.id)).toEqual([]); // nothing looked: no websocket, and the poll is 10 minutes away
      expect((await post(authHeader)).status).toBe(200);
      const credits = await until("the webhook's scan", async () => {
        const rows = await creditsOf(deposit.id);
        return rows.length > 0 ? rows : undefined;
      });
      expect(credits).toEqual([{ signature, amount: "7500000", found_by: "webhook", finalized: false }]);
    } finally {
      receiver.stop();
      await quiet.stop();
    }
  });
});

describe("a poll that could not read everything listed at an account does not vouch for its evidence", () => {
  /**
   * A loopback JSON-RPC proxy in front of the chain that answers `getTransaction` for the
   * signatures in `withheld` with null, as a node that lists a signature before it can
   * serve its transaction does.
   */
  function withholdingProxy(upstream: string) {
    const withheld = new Set<string>();
    /** Served, but without status metadata (`meta: null`), as a node may serve one. */
    const metaless = new Set<string>();
    const proxy = rewritingProxy(upstream, (call, answer) => {
      const signature = call.method === "getTransaction" ? String(call.params?.[0]) : "";
      if (withheld.has(signature)) return { ...answer, result: null };
      if (metaless.has(signature) && answer.result) return { ...answer, result: { ...(answer.result as object), meta: null } };
      return answer;
    });
    return { ...proxy, withheld, metaless };
  }
  const horizon = async () => {
    const [row] = await queryRows<{ through: Date | null }>(api.db, sql`select evidence_through as through from solana_ingest_heads where chain_id = ${network().chainId}`);
    return row?.through ? new Date(row.through).getTime() : null;
  };
  /** The evidence horizon of the account a payment's subscriber scans (issue 44.3: each account its own). */
  const accountHorizon = async (paymentId: string) => {
    const [row] = await queryRows<{ through: Date | null }>(api.db, sql`select evidence_through as through from solana_address_scans where payment_id = ${paymentId}`);
    return row?.through ? new Date(row.through).getTime() : null;
  };

  /** The chain moves on two slots, stamped at least a second later (block times are whole seconds), and `subscriber` polls. */
  const pollLater = async (subscriber: ChainSubscriber) => {
    solana.chain.advanceSlots(2);
    await Bun.sleep(1100);
    await subscriber.poll();
  };

  // BUG: a payment whose token left the network's configuration was skipped with a warning,
  // and the poll still vouched for the chain: the payment expired unread, though paid.
  test("a payment the subscriber cannot watch holds the evidence horizon where it was", async () => {
    const deposit = await create("/api/v1/deposits/create", "4");
    await solana.pay({ to: deposit.receiveAddress, amount: 4_000_000n });
    const withoutUsdc = { ...network(), tokens: network().tokens.filter((t) => t.symbol !== "USDC") };
    const blind = startChainSubscriber({ config: api.config, db: api.db, logger, network: withoutUsdc, channel: INDEXED_CHANNEL, websocket: false });
    try {
      await blind.ready;
      const before = await horizon();
      await pollLater(blind);
      expect(await horizon()).toBe(before);
    } finally {
      await blind.stop();
    }
  });

  test("a transaction listed but not served yet holds the evidence horizon where it was; read, it moves on", async () => {
    const proxy = withholdingProxy(solana.chain.rpcUrl);
    const quiet = startChainSubscriber({ config: api.config, db: api.db, logger, network: { ...network(), rpcUrl: proxy.url }, channel: INDEXED_CHANNEL, websocket: false });
    try {
      await quiet.ready;
      const deposit = await create("/api/v1/deposits/create", "6");
      await quiet.poll(); // watched from here on
      const signature = await solana.pay({ to: deposit.receiveAddress, amount: 6_000_000n });
      proxy.withheld.add(signature);
      const before = await accountHorizon(deposit.id);
      const chainBefore = await horizon();
      await pollLater(quiet);
      expect(await creditsOf(deposit.id)).toEqual([]);
      // Everything else at the address was read, but not this transaction: its payment's expiry must not be judged past it.
      expect(await accountHorizon(deposit.id)).toBe(before);
      expect(quiet.held()).toBe(1);
      // The chain's other payments are not held by it.
      expect(await horizon()).toBeGreaterThan(chainBefore ?? 0);

      proxy.withheld.clear();
      await pollLater(quiet);
      expect((await creditsOf(deposit.id)).map(({ finalized: _, ...c }) => c)).toEqual([{ signature, amount: "6000000", found_by: "poll" }]);
      expect(await accountHorizon(deposit.id)).toBeGreaterThan(before ?? 0);
      expect(quiet.held()).toBe(0);
    } finally {
      await quiet.stop();
      proxy.stop();
    }
  });

  // BUG: the scan listed an address's signatures from whichever node answered, though the
  // horizon it vouched for was the slot read before: a node behind it (one of several behind
  // the provider's URL) listed fewer, and a payment in the slots between could expire.
  test("a node lagging behind the slot the poll read is not believed: the scan asks for that slot at least, and the horizon holds", async () => {
    let laggingAt: number | null = null;
    let refused = 0;
    // A node at slot `laggingAt`: it knows nothing newer, and refuses a read that needs more.
    const proxy = rewritingProxy(solana.chain.rpcUrl, (call, answer) => {
      if (call.method !== "getSignaturesForAddress" || laggingAt === null) return answer;
      const minContextSlot = (call.params?.[1] as { minContextSlot?: number } | undefined)?.minContextSlot;
      if (typeof minContextSlot === "number" && minContextSlot > laggingAt) {
        refused++;
        return { jsonrpc: "2.0", id: answer.id, error: { code: -32016, message: "Minimum context slot has not been reached", data: { contextSlot: laggingAt } } } as never;
      }
      return { ...answer, result: (answer.result as Array<{ slot: number }>).filter((s) => s.slot <= laggingAt!) };
    });
    const quiet = startChainSubscriber({ config: api.config, db: api.db, logger, network: { ...network(), rpcUrl: proxy.url }, channel: INDEXED_CHANNEL, websocket: false });
    try {
      await quiet.ready;
      const deposit = await create("/api/v1/deposits/create", "5");
      await quiet.poll(); // watched from here on
      laggingAt = await new Connection(solana.chain.rpcUrl).getSlot("confirmed");
      await solana.pay({ to: deposit.receiveAddress, amount: 5_000_000n });
      const before = await accountHorizon(deposit.id);
      await pollLater(quiet);
      expect(await creditsOf(deposit.id)).toEqual([]);
      expect(await accountHorizon(deposit.id)).toBe(before);
      expect(refused).toBeGreaterThan(0);

      laggingAt = null; // caught up
      await pollLater(quiet);
      expect((await creditsOf(deposit.id)).map((c) => c.amount)).toEqual(["5000000"]);
      expect(await accountHorizon(deposit.id)).toBeGreaterThan(before ?? 0);
    } finally {
      await quiet.stop();
      proxy.stop();
    }
  });

  // BUG: a page after the first (`before` = the oldest signature of the page before) could
  // go to a node behind the same URL that has not reached that signature: it answers [],
  // which read as the end of the list; the cursor jumped to the newest signature and the
  // pass was complete, so the older signatures in between were never listed again.
  test("a page after the first asks for the slot of its `before` signature: a node that does not know that signature refuses instead of ending the list", async () => {
    let laggingAt: number | null = null;
    const lagging = laggingBeforeNode(() => laggingAt);
    const proxy = rewritingProxy(solana.chain.rpcUrl, lagging.rewrite);
    try {
      const deposit = await create("/api/v1/deposits/create", "3");
      const row = (await paymentsToWatch(api.db, network().chainId, { afterCloseMs: 0, everyPollAfterCloseMs: 0 })).find((p) => p.id === deposit.id)!;
      const polled = await solana.connection.getSlot("confirmed");
      const signatures: string[] = [];
      for (let i = 0; i < 3; i++) signatures.push(await solana.pay({ to: deposit.receiveAddress, amount: 1_000_000n })); // a slot each
      const deps = { db: api.db, connection: new Connection(proxy.url, "confirmed"), chainId: network().chainId, channel: INDEXED_CHANNEL, pageSize: 2 };
      laggingAt = polled;
      await expect(scanAddress(deps, watchOf(network(), row), "poll", polled)).rejects.toThrow("Minimum context slot");
      expect(lagging.refused()).toBe(1);
      // The first page is kept (issue 44.3); the cursor stays where it was until the listing reaches it.
      expect((await creditsOf(deposit.id)).map((c) => c.signature)).toEqual(signatures.slice(1));
      expect(await addressCursor(api.db, network().chainId, watchOf(network(), row).scan)).toBeNull();

      laggingAt = null; // caught up
      expect(await scanAddress(deps, watchOf(network(), row), "poll", polled)).toEqual({ inserted: 1, complete: true });
      expect((await creditsOf(deposit.id)).map((c) => c.signature)).toEqual(signatures);
      expect(await addressCursor(api.db, network().chainId, watchOf(network(), row).scan)).toBe(signatures[2]!);
    } finally {
      proxy.stop();
    }
  });

  // BUG: a batch's transactions were matched to the signatures asked by position; a provider
  // answering in another order had a credit stored under another transaction's signature, and
  // the real one, submitted later, counted again.
  test("a batch answered out of order: each credit is stored under its own signature, and counted once", async () => {
    const proxy = rewritingProxy(solana.chain.rpcUrl, (_call, answer) => answer, { reorder: (answers) => [...answers].reverse() });
    try {
      const deposit = await create("/api/v1/deposits/create", "5");
      const row = (await paymentsToWatch(api.db, network().chainId, { afterCloseMs: 0, everyPollAfterCloseMs: 0 })).find((p) => p.id === deposit.id)!;
      const paid = await solana.pay({ to: deposit.receiveAddress, amount: 2_000_000n });
      solana.chain.advanceSlots(1);
      const empty = await solana.pay({ to: deposit.receiveAddress, amount: 0n });
      const deps = { db: api.db, connection: new Connection(proxy.url, "confirmed"), chainId: network().chainId, channel: INDEXED_CHANNEL };
      expect(await scanAddress(deps, watchOf(network(), row), "poll")).toEqual({ inserted: 1, complete: true });
      expect((await creditsOf(deposit.id)).map((c) => c.signature)).toEqual([paid]);
      expect((await creditsOf(deposit.id)).map((c) => c.signature)).not.toContain(empty);
      const processed = await api.request("/api/v1/payments/process", { headers: { "x-public-key": merchant.publicKey }, body: { paymentId: deposit.id, txHash: paid } });
      expect(processed.status).toBe(200);
      expect(processed.body.payment.amountReceived).toBe("2");
    } finally {
      proxy.stop();
    }
  });

  // BUG: a credit whose transaction came without a block time was stamped with the scan's
  // clock: money paid in time, read after the deadline, counted as late.
  test("a transaction served without its block time: the time is asked by slot; untold, the pass stops before it", async () => {
    let blockTimeKnown = false;
    const proxy = rewritingProxy(solana.chain.rpcUrl, (call, answer) => {
      if (call.method === "getTransaction" && answer.result) return { ...answer, result: { ...(answer.result as object), blockTime: null } };
      if (call.method === "getSignaturesForAddress") return { ...answer, result: (answer.result as object[]).map((s) => ({ ...s, blockTime: null })) };
      if (call.method === "getBlockTime" && !blockTimeKnown) return { ...answer, result: null };
      return answer;
    });
    try {
      const deposit = await create("/api/v1/deposits/create", "2");
      const row = (await paymentsToWatch(api.db, network().chainId, { afterCloseMs: 0, everyPollAfterCloseMs: 0 })).find((p) => p.id === deposit.id)!;
      const signature = await solana.pay({ to: deposit.receiveAddress, amount: 2_000_000n });
      const deps = { db: api.db, connection: new Connection(proxy.url, "confirmed"), chainId: network().chainId, channel: INDEXED_CHANNEL };
      expect(await scanAddress(deps, watchOf(network(), row), "poll")).toEqual({ inserted: 0, complete: false });
      expect(await creditsOf(deposit.id)).toEqual([]);

      blockTimeKnown = true;
      expect(await scanAddress(deps, watchOf(network(), row), "poll")).toEqual({ inserted: 1, complete: true });
      const { slot } = (await solana.connection.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: "confirmed" }))!;
      const [stored] = await queryRows<{ block_time: Date }>(api.db, sql`select block_time from solana_credits where payment_id = ${deposit.id}`);
      expect(new Date(stored!.block_time).getTime()).toBe((await solana.connection.getBlockTime(slot))! * 1000);
    } finally {
      proxy.stop();
    }
  });

  // BUG: a pass fetched every transaction listed since the cursor before recording any: one
  // failure after thousands of (spam) transactions lost all of the pass's progress, every pass.
  test("a pass records a chunk at a time, oldest first: a failure later in the list keeps what was read before it", async () => {
    let failing: string | null = null;
    const proxy = rewritingProxy(solana.chain.rpcUrl, (call, answer) =>
      call.method === "getTransaction" && call.params?.[0] === failing ? ({ jsonrpc: "2.0", id: answer.id, error: { code: -32005, message: "Node is unhealthy" } } as never) : answer,
    );
    try {
      const deposit = await create("/api/v1/deposits/create", "5");
      const watch = watchOf(network(), (await paymentsToWatch(api.db, network().chainId, { afterCloseMs: 0, everyPollAfterCloseMs: 0 })).find((p) => p.id === deposit.id)!);
      const signatures: string[] = [];
      for (let i = 0; i < 5; i++) signatures.push(await solana.pay({ to: deposit.receiveAddress, amount: 1_000_000n }));
      const deps = { db: api.db, connection: new Connection(proxy.url, "confirmed"), chainId: network().chainId, channel: INDEXED_CHANNEL, chunkSize: 2 };
      failing = signatures[3]!; // in the second chunk
      await expect(scanAddress(deps, watch, "poll")).rejects.toThrow("Node is unhealthy");
      expect((await creditsOf(deposit.id)).map((c) => c.signature)).toEqual(signatures.slice(0, 2));
      expect(await addressCursor(api.db, network().chainId, watch.scan)).toBe(signatures[1]!);

      failing = null;
      expect(await scanAddress(deps, watch, "poll")).toEqual({ inserted: 3, complete: true });
      expect((await creditsOf(deposit.id)).map((c) => c.signature)).toEqual(signatures);
      expect(await addressCursor(api.db, network().chainId, watch.scan)).toBe(signatures[4]!);
    } finally {
      proxy.stop();
    }
  });

  // BUG: a pass asked for every new credit's status in one call; a node answers at most 256,
  // so 257 dust transfers to one address (or a replay after an outage) stopped its scans for
  // good — and with them the chain's evidence horizon, so nothing on it could expire.
  test("more new credits at one address than one status call may name are all recorded", async () => {
    const quiet = startChainSubscriber({ config: api.config, db: api.db, logger, network: network(), channel: INDEXED_CHANNEL, websocket: false });
    try {
      await quiet.ready;
      const deposit = await create("/api/v1/deposits/create", "1");
      await quiet.poll(); // watched from here on
      for (let i = 0; i < 257; i++) await solana.pay({ to: deposit.receiveAddress, amount: 1n });
      const before = await horizon();
      await pollLater(quiet);
      expect((await creditsOf(deposit.id)).length).toBe(257);
      expect(await horizon()).toBeGreaterThan(before ?? 0);
    } finally {
      await quiet.stop();
    }
  }, 60_000);

  // BUG: a transaction served without its metadata read as "no credit", and the cursor moved past it for good.
  test("a transaction served without its metadata is looked at again, not passed over", async () => {
    const proxy = withholdingProxy(solana.chain.rpcUrl);
    const quiet = startChainSubscriber({ config: api.config, db: api.db, logger, network: { ...network(), rpcUrl: proxy.url }, channel: INDEXED_CHANNEL, websocket: false });
    try {
      await quiet.ready;
      const deposit = await create("/api/v1/deposits/create", "4");
      await quiet.poll();
      const signature = await solana.pay({ to: deposit.receiveAddress, amount: 4_000_000n });
      proxy.metaless.add(signature);
      solana.chain.advanceSlots(2);
      await quiet.poll();
      expect(await creditsOf(deposit.id)).toEqual([]);
      proxy.metaless.clear();
      // A poll the subscriber's own timer began before the clear may still be the one answering:
      // a few more polls, each after the clear; one passed over for good would never be found.
      for (let i = 0; i < 5 && (await creditsOf(deposit.id)).length === 0; i++) {
        solana.chain.advanceSlots(2);
        await quiet.poll();
      }
      expect((await creditsOf(deposit.id)).map((c) => [c.signature, c.amount])).toEqual([[signature, "4000000"]]);
    } finally {
      await quiet.stop();
      proxy.stop();
    }
  });

  // BUG: /payments/process read a transaction served without its metadata as one that pays
  // nothing: a 400 "does not pay" for a payment it may well pay.
  test("/payments/process: a transaction served without its metadata is a 503 (try again), not one that pays nothing", async () => {
    const proxy = withholdingProxy(solana.chain.rpcUrl);
    const configured = network();
    const rpcUrl = configured.rpcUrl;
    configured.rpcUrl = proxy.url; // the API reads the chain through the proxy
    try {
      const deposit = await create("/api/v1/deposits/create", "2");
      const signature = await solana.pay({ to: deposit.receiveAddress, amount: 2_000_000n });
      proxy.metaless.add(signature);
      const process = () => api.request("/api/v1/payments/process", { headers: headers(), body: { paymentId: deposit.id, txHash: signature } });
      const refused = await process();
      expect(refused.status).toBe(503);
      expect(refused.body).toMatchObject({ success: false, error: "service_unavailable" });
      expect(await creditsOf(deposit.id)).toEqual([]);
      proxy.metaless.clear();
      const processed = await process();
      expect(processed.status).toBe(200);
      expect(processed.body.payment).toMatchObject({ amountReceived: "2", transactionHash: signature });
    } finally {
      configured.rpcUrl = rpcUrl;
      proxy.stop();
    }
  });
});

// BUG: /payments/process read the transaction's finality unguarded: a node failing on that
// second read (rate-limited, behind) was an unhandled error, a 500.
test("/payments/process: a node failing on the transaction's status is a 503 (try again), not a 500", async () => {
  let failing = true;
  const proxy = rewritingProxy(solana.chain.rpcUrl, (call, answer) =>
    failing && call.method === "getSignatureStatuses" ? ({ id: answer.id, jsonrpc: "2.0", error: { code: -32005, message: "Node is behind by 42 slots" } } as never) : answer,
  );
  const configured = network();
  const rpcUrl = configured.rpcUrl;
  configured.rpcUrl = proxy.url;
  try {
    const deposit = await create("/api/v1/deposits/create", "2");
    const signature = await solana.pay({ to: deposit.receiveAddress, amount: 2_000_000n });
    const process = () => api.request("/api/v1/payments/process", { headers: headers(), body: { paymentId: deposit.id, txHash: signature } });
    const refused = await process();
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ success: false, error: "service_unavailable" });
    failing = false;
    expect((await process()).status).toBe(200);
  } finally {
    configured.rpcUrl = rpcUrl;
    proxy.stop();
  }
});

describe("a credit the node does not know (a fork dropped it)", () => {
  /** A loopback JSON-RPC proxy whose `getSignatureStatuses` answers come from a node stuck at `slot` (its context slot). */
  function laggingProxy(upstream: string, slot: number) {
    return rewritingProxy(upstream, (call, answer) => {
      if (call.method !== "getSignatureStatuses" || !answer.result) return answer;
      const result = answer.result as { context: { slot: number }; value: unknown };
      return { ...answer, result: { ...result, context: { ...result.context, slot } } };
    });
  }
  const removedAt = async (signature: string) => {
    const [row] = await queryRows<{ removed_at: Date | null }>(api.db, sql`select removed_at from solana_credits where signature = ${signature}`);
    return row === undefined ? "no such credit" : row.removed_at;
  };

  test("removed only on the word of a node that has reached the finalized slot; found again, it is restored", async () => {
    const deposit = await create("/api/v1/deposits/create", "3");
    const slot = BigInt(solana.chain.advanceSlots(1));
    const credit = {
      signature: base58.encode(crypto.getRandomValues(new Uint8Array(64))), // never sent: no node knows it
      account: getAssociatedTokenAddressSync(solana.usdc.address, new PublicKey(deposit.receiveAddress), true).toBase58(),
      paymentId: deposit.id,
      source: "transfer" as const,
      owner: deposit.receiveAddress,
      mint: usdc(),
      tokenProgram: TOKEN_PROGRAM_ID.toBase58(),
      amount: 3_000_000n,
      slot,
      blockTime: new Date(),
      accountIndex: 1,
      finalized: false,
    };
    const chainId = network().chainId;
    expect((await recordCredits(api.db, { chainId, channel: INDEXED_CHANNEL, foundBy: "poll", credits: [credit] })).inserted).toBe(1);
    expect((await status(deposit.id)).amountReceived).toBe("3");
    solana.chain.advanceSlots(400); // far past any blockhash's life
    solana.chain.finalize();

    // A node behind the one that gave the finalized slot does not know the transaction *yet*.
    const lagging = laggingProxy(solana.chain.rpcUrl, Number(slot));
    try {
      await advanceFinality({ db: api.db, connection: new Connection(lagging.url, "confirmed"), chainId, channel: INDEXED_CHANNEL });
    } finally {
      lagging.stop();
    }
    expect(await removedAt(credit.signature)).toBeNull();
    expect((await status(deposit.id)).amountReceived).toBe("3");

    // A node at the finalized slot that does not know it: dropped.
    await advanceFinality({ db: api.db, connection: solana.connection, chainId, channel: INDEXED_CHANNEL });
    expect(await removedAt(credit.signature)).toBeInstanceOf(Date);
    expect((await status(deposit.id)).amountReceived).toBe("0");

    // Found on chain again (a replay of the slots, say): the credit counts again.
    const again = { ...credit, slot: BigInt(solana.chain.finalize()), finalized: true };
    expect((await recordCredits(api.db, { chainId, channel: INDEXED_CHANNEL, foundBy: "replay", credits: [again] })).inserted).toBe(1);
    expect(await removedAt(credit.signature)).toBeNull();
    expect((await status(deposit.id)).amountReceived).toBe("3");
  });

  // BUG: a replay reads every payment, so a transaction carrying two payments' references came
  // out as two credits of one token account's rise; the one insert naming that row twice failed
  // (ON CONFLICT cannot touch a row twice), and with it every credit the replay had found.
  test("one rise of a token account read for two payments is stored once, for the first, with the batch's other credits", async () => {
    const first = await create("/api/v1/deposits/create", "3");
    const second = await create("/api/v1/deposits/create", "3");
    const other = await create("/api/v1/deposits/create", "1");
    const slot = BigInt(solana.chain.advanceSlots(1));
    const credit = (paymentId: string, owner: string, amount: bigint) => ({
      signature: base58.encode(crypto.getRandomValues(new Uint8Array(64))),
      account: getAssociatedTokenAddressSync(solana.usdc.address, new PublicKey(owner), true).toBase58(),
      paymentId,
      source: "transfer" as const,
      owner,
      mint: usdc(),
      tokenProgram: TOKEN_PROGRAM_ID.toBase58(),
      amount,
      slot,
      blockTime: new Date(),
      accountIndex: 1,
      finalized: true,
    });
    const shared = credit(first.id, first.receiveAddress, 3_000_000n);
    const credits = [shared, { ...shared, paymentId: second.id }, credit(other.id, other.receiveAddress, 1_000_000n)];
    expect((await recordCredits(api.db, { chainId: network().chainId, channel: INDEXED_CHANNEL, foundBy: "replay", credits })).inserted).toBe(2);
    const rows = await queryRows<{ payment_id: string }>(api.db, sql`select payment_id from solana_credits where signature = ${shared.signature}`);
    expect(rows.map((r) => r.payment_id)).toEqual([first.id]);
    expect((await status(other.id)).amountReceived).toBe("1");
  });

  // BUG: a transaction read on a dropped fork that landed again on the kept one was marked
  // finalized by its signature alone, keeping the dropped fork's amount, slot and time; and an
  // address whose cursor it was listed only what came after its new slot.
  test("a credit final at another slot than it was read at is read again there: its amount, slot and time are the kept fork's", async () => {
    const deposit = await create("/api/v1/deposits/create", "5");
    const signature = await solana.pay({ to: deposit.receiveAddress, amount: 2_000_000n });
    const [landed] = (await solana.connection.getSignatureStatuses([signature])).value;
    const account = getAssociatedTokenAddressSync(solana.usdc.address, new PublicKey(deposit.receiveAddress), true).toBase58();
    solana.chain.advanceSlots(2);
    // As read on the dropped fork: another slot, another amount.
    const credit = { signature, account, paymentId: deposit.id, source: "transfer" as const, owner: deposit.receiveAddress, mint: usdc(), tokenProgram: TOKEN_PROGRAM_ID.toBase58(), amount: 5_000_000n, slot: BigInt(landed!.slot) + 1n, blockTime: new Date(0), accountIndex: 9, finalized: false };
    const chainId = network().chainId;
    expect((await recordCredits(api.db, { chainId, channel: INDEXED_CHANNEL, foundBy: "poll", credits: [credit], scanned: { address: account, signatures: [{ signature, slot: credit.slot }] } })).inserted).toBe(1);
    expect((await status(deposit.id)).amountReceived).toBe("5");

    solana.chain.finalize();
    await advanceFinality({ db: api.db, connection: solana.connection, chainId, channel: INDEXED_CHANNEL });
    const [row] = await queryRows<{ amount: string; slot: string; block_time: Date; finalized: boolean }>(api.db, sql`select amount::text, slot::text, block_time, finalized from solana_credits where signature = ${signature}`);
    const blockTime = (await solana.connection.getBlockTime(landed!.slot))!;
    expect(row).toMatchObject({ amount: "2000000", slot: String(landed!.slot), finalized: true });
    expect(new Date(row!.block_time).getTime()).toBe(blockTime * 1000);
    expect((await status(deposit.id)).amountReceived).toBe("2");
    expect(await addressCursor(api.db, chainId, account)).toBeNull(); // listed again whole next pass
  });

  // BUG: a transaction credited at `confirmed` on a fork that was dropped can land again on
  // the kept fork and fail there: finalized with an error was neither "done" nor "dropped",
  // so the credit stayed open and the finalized watermark stayed below its slot for good.
  test("a credit whose transaction finalized failed is removed, and the watermark moves past it", async () => {
    const deposit = await create("/api/v1/deposits/create", "2");
    const account = getAssociatedTokenAddressSync(solana.usdc.address, new PublicKey(deposit.receiveAddress), true);
    const source = getAssociatedTokenAddressSync(solana.usdc.address, solana.customer.publicKey);
    // More than the customer holds: the token program fails it (sent without preflight, it lands failed).
    const { blockhash, lastValidBlockHeight } = await solana.connection.getLatestBlockhash("confirmed");
    const transaction = new Transaction({ feePayer: solana.customer.publicKey, blockhash, lastValidBlockHeight }).add(
      createTransferCheckedInstruction(source, solana.usdc.address, account, solana.customer.publicKey, 10n ** 15n, 6),
    );
    transaction.sign(solana.customer);
    const signature = await solana.connection.sendRawTransaction(transaction.serialize(), { skipPreflight: true });
    solana.chain.advanceSlots(1);
    const [landed] = (await solana.connection.getSignatureStatuses([signature])).value;
    expect(landed?.err).not.toBeNull();
    const slot = BigInt(landed!.slot);
    // As the credit read on the dropped fork, where it succeeded.
    const credit = { signature, account: account.toBase58(), paymentId: deposit.id, source: "transfer" as const, owner: deposit.receiveAddress, mint: usdc(), tokenProgram: TOKEN_PROGRAM_ID.toBase58(), amount: 2_000_000n, slot, blockTime: new Date(), accountIndex: 1, finalized: false };
    const chainId = network().chainId;
    expect((await recordCredits(api.db, { chainId, channel: INDEXED_CHANNEL, foundBy: "poll", credits: [credit] })).inserted).toBe(1);
    expect((await status(deposit.id)).amountReceived).toBe("2");

    solana.chain.finalize();
    const watermark = await advanceFinality({ db: api.db, connection: solana.connection, chainId, channel: INDEXED_CHANNEL });
    expect(await removedAt(signature)).toBeInstanceOf(Date);
    expect(watermark).toBeGreaterThanOrEqual(slot);
    expect((await status(deposit.id)).amountReceived).toBe("0");
  });
});

describe("the subscriber: websocket, poller and finality", () => {
  beforeAll(async () => {
    subscriber = startChainSubscriber({ config: api.config, db: api.db, logger, network: network(), channel: INDEXED_CHANNEL });
    await subscriber.ready;
  });

  /** Polls (the new payment is watched from then on) and waits until the node has its subscription. */
  async function subscribed() {
    await subscriber.poll();
    await until("the websocket subscriptions", async () => solana.chain.subscriptionCount() > subscriber.websocket!.size());
  }

  const waitCredits = (id: string, n: number) =>
    until(`${n} credits`, async () => {
      const rows = await creditsOf(id);
      return rows.length >= n ? rows : undefined;
    });

  test("an exact deposit: detected at confirmed, completed only once its slot is finalized", async () => {
    const deposit = await create("/api/v1/deposits/create", "10");
    await subscribed(); // the new payment is watched (and subscribed) from here on
    const signature = await solana.pay({ to: deposit.receiveAddress, amount: 10_000_000n });
    const [credit] = await waitCredits(deposit.id, 1);
    expect(credit).toMatchObject({ signature, amount: "10000000", found_by: "websocket" });
    const confirming = await status(deposit.id);
    expect(confirming).toMatchObject({ status: "confirming", amountReceived: "10", amountRemaining: "0", excessOwed: "0" });
    expect(confirming.confirmations).toBeLessThan(network().requiredConfirmations);
    solana.chain.advanceSlots(1);
    await Bun.sleep(200);
    expect((await status(deposit.id)).status).toBe("confirming");
    await finalize();
    const done = await status(deposit.id);
    expect(done).toMatchObject({ status: "completed", amountReceived: "10" });
    expect(done.confirmations).toBeGreaterThanOrEqual(network().requiredConfirmations);
    expect((await creditsOf(deposit.id))[0]!.finalized).toBe(true);
  });

  test("partial, then the rest: pending with what is remaining, then completed", async () => {
    const deposit = await create("/api/v1/deposits/create", "10");
    await subscribed();
    await solana.pay({ to: deposit.receiveAddress, amount: 4_000_000n });
    await waitCredits(deposit.id, 1);
    expect(await status(deposit.id)).toMatchObject({ status: "pending", amountReceived: "4", amountRemaining: "6" });
    await solana.pay({ to: deposit.receiveAddress, amount: 6_000_000n });
    await waitCredits(deposit.id, 2);
    await finalize();
    expect(await status(deposit.id)).toMatchObject({ status: "completed", amountReceived: "10", amountRemaining: "0", excessOwed: "0" });
  });

  test("over, then late: the excess and the late money are owed back", async () => {
    const deposit = await create("/api/v1/deposits/create", "10");
    await subscribed();
    await solana.pay({ to: deposit.receiveAddress, amount: 12_500_000n });
    await waitCredits(deposit.id, 1);
    await finalize();
    expect(await status(deposit.id)).toMatchObject({ status: "completed", amountReceived: "12.5", excessOwed: "2.5", lateAmount: "0" });
    // Late: after the window closed (a block stamped after the expiry proves it); block times are whole seconds.
    await api.db.execute(sql`update payments set expires_at = (select block_time from solana_credits where payment_id = ${deposit.id}) + interval '1 second' where id = ${deposit.id}`);
    await Bun.sleep(2100);
    solana.chain.advanceSlots(1); // a slot opened now: its block time is after the expiry
    await solana.pay({ to: deposit.receiveAddress, amount: 1_000_000n });
    await waitCredits(deposit.id, 2);
    await finalize();
    expect(await status(deposit.id)).toMatchObject({ status: "completed", amountReceived: "13.5", excessOwed: "3.5", lateAmount: "1" });
  });

  test("expired with funds, once the subscriber has looked past the expiry: everything received is owed back", async () => {
    const deposit = await create("/api/v1/deposits/create", "10");
    await subscribed();
    await solana.pay({ to: deposit.receiveAddress, amount: 3_000_000n });
    await waitCredits(deposit.id, 1);
    // The window closes a second after the payment's block (block times are whole seconds), and the clock passes it.
    await api.db.execute(sql`update payments set expires_at = (select block_time from solana_credits where payment_id = ${deposit.id}) + interval '1 second' where id = ${deposit.id}`);
    await Bun.sleep(2100);
    await finalize();
    // The subscriber's last full poll was before the expiry: a transfer made in time may still be unread.
    expect(await status(deposit.id)).toMatchObject({ status: "pending", amountReceived: "3", amountRemaining: "7" });
    // Slots opened now (the newest confirmed one stamped after the expiry), and a poll over every watched account.
    solana.chain.advanceSlots(2);
    await subscriber.poll();
    const [head] = await queryRows<{ through: Date; expires: Date }>(api.db, sql`
      select h.evidence_through as through, p.expires_at as expires from solana_ingest_heads h, payments p where h.chain_id = ${network().chainId} and p.id = ${deposit.id}`);
    expect(new Date(head!.through).getTime()).toBeGreaterThanOrEqual(new Date(head!.expires).getTime());
    expect(await status(deposit.id)).toMatchObject({ status: "expired", amountReceived: "3", amountRemaining: "0", excessOwed: "3" });
  });

  test("a Solana Pay transfer is found by its reference", async () => {
    const payment = await create("/api/v1/payments/create", "2.25");
    await subscriber.poll();
    const signature = await solana.pay({ to: solana.merchant.publicKey, amount: 2_250_000n, reference: payment.solanaPay.reference! });
    expect((await waitCredits(payment.id, 1))[0]).toMatchObject({ signature, found_by: "websocket" });
    await finalize();
    expect(await status(payment.id)).toMatchObject({ status: "completed", amountReceived: "2.25" });
  });

  test("a websocket gap: the poller finds the transfer, and the websocket seeing it afterwards adds nothing", async () => {
    const deposit = await create("/api/v1/deposits/create", "4");
    await subscriber.poll();
    subscriber.websocket!.sync([]); // the notifications for it are lost
    const signature = await solana.pay({ to: deposit.receiveAddress, amount: 4_000_000n });
    await Bun.sleep(300);
    expect(await creditsOf(deposit.id)).toEqual([]);
    await subscriber.poll(); // the backstop (it also subscribes the address again)
    expect(await creditsOf(deposit.id)).toEqual([{ signature, amount: "4000000", found_by: "poll", finalized: false }]);
    await subscriber.prompt([deposit.receiveAddress], "websocket");
    await subscriber.poll();
    expect((await creditsOf(deposit.id)).length).toBe(1);
    await finalize();
    expect(await status(deposit.id)).toMatchObject({ status: "completed", amountReceived: "4" });
  });

  test("a Token-2022 transfer with a fee is credited what arrived, not the instruction's amount", async () => {
    const response = await api.request("/api/v1/deposits/create", { headers: headers(), body: { amount: "99", currency: "FEEUSD", network: "solana-local", orderId: crypto.randomUUID() } });
    expect(response.status).toBe(201);
    const deposit = response.body.payment as { id: string; depositAddress: string };
    await subscribed();
    await solana.pay({ to: deposit.depositAddress, amount: 100_000_000n, mint: solana.feeToken });
    const [credit] = await waitCredits(deposit.id, 1);
    expect(credit!.amount).toBe("99000000"); // 100 sent, 1% withheld at the recipient
    await finalize();
    expect(await status(deposit.id)).toMatchObject({ status: "completed", amountReceived: "99" });
  });

  test("the watchdog replaces a websocket that has gone silent, and rescans", async () => {
    const watchdog = startChainSubscriber({
      config: { ...api.config, solana: { ...api.config.solana, wsStaleMs: 300 } },
      db: api.db,
      logger,
      network: network(),
      channel: INDEXED_CHANNEL,
    });
    try {
      await watchdog.ready;
      // No slot is produced: the socket looks dead and is replaced.
      await until("a replacement", async () => watchdog.websocket!.replacements() > 0);
      expect(watchdog.websocket!.size()).toBe(watchdog.watched() - watchdog.lateOnly());
    } finally {
      await watchdog.stop();
    }
  });
  test("the solana role's metrics: credits by what found them, watched accounts, live subscriptions", async () => {
    const text = await renderMetrics();
    const sample = (line: RegExp) => Number(text.match(line)?.[1] ?? NaN);
    // The subscriber's own counts (this process has run others too: the counter is at least its own).
    expect(sample(/^stablepay_solana_credits_total\{[^}]*network="solana-local"[^}]*found_by="websocket"[^}]*\} (\d+)$/m)).toBeGreaterThanOrEqual(subscriber.found().websocket);
    expect(sample(/^stablepay_solana_credits_total\{[^}]*network="solana-local"[^}]*found_by="poll"[^}]*\} (\d+)$/m)).toBeGreaterThanOrEqual(1);
    expect(sample(/^stablepay_solana_watched_accounts\{[^}]*network="solana-local"[^}]*\} (\d+)$/m)).toBe(subscriber.watched());
    expect(sample(/^stablepay_solana_websocket_subscriptions\{[^}]*network="solana-local"[^}]*\} (\d+)$/m)).toBe(subscriber.websocket!.size());
    expect(subscriber.watched()).toBeGreaterThan(0);
  });
});

/** Moves a payment's life `minutes` back: created, expired and last updated then (closed that long ago, nothing open). */
async function closedMinutesAgo(id: string, minutes: number) {
  await api.db.execute(sql`update payments set status = 'expired', created_at = now() - make_interval(mins => ${minutes + 60}),
    expires_at = now() - make_interval(mins => ${minutes}), updated_at = now() - make_interval(mins => ${minutes}) where id = ${id}`);
}

describe("accounts of payments closed a while ago: late money only", () => {
  // BUG: every account watched for late money (72 hours of closed payments) was scanned on
  // every 5-second poll and followed over the websocket: 10,000 payments a day made ~30,000
  // getSignaturesForAddress calls per poll.
  test("scanned on every poll while open or within the hour after closing, or while money moves out; after that, watched at the late pace until the watch ends", async () => {
    const deposit = () => create("/api/v1/deposits/create", "1");
    const [open, recent, late, movingOut, gone] = [await deposit(), await deposit(), await deposit(), await deposit(), await deposit()];
    await closedMinutesAgo(recent.id, 30);
    await closedMinutesAgo(late.id, 120);
    await closedMinutesAgo(movingOut.id, 120);
    await closedMinutesAgo(gone.id, 100 * 60);
    await api.db.execute(sql`insert into transfers_out (payment_id, kind, chain_id, token_address, to_address, amount)
      values (${movingOut.id}, 'refund', ${network().chainId}, ${usdc()}, ${solana.merchant.publicKey.toBase58()}, 1000000)`);
    const watched = await paymentsToWatch(api.db, network().chainId, { afterCloseMs: 72 * 3_600_000, everyPollAfterCloseMs: 3_600_000 });
    const flag = (id: string) => watched.find((p) => p.id === id)?.recent;
    expect([flag(open.id), flag(recent.id), flag(late.id), flag(movingOut.id), flag(gone.id)]).toEqual([true, true, false, true, undefined]);
  });

  test("money sent to one is found by the next late scan, not by every poll, and never over the websocket", async () => {
    const deposit = await create("/api/v1/deposits/create", "2");
    await closedMinutesAgo(deposit.id, 120);
    const late = startChainSubscriber({
      config: { ...api.config, solana: { ...api.config.solana, latePollIntervalMs: 1_500 } },
      db: api.db,
      logger,
      network: network(),
      channel: INDEXED_CHANNEL,
    });
    try {
      await late.ready; // its first poll scanned every watched account, the late ones included
      expect(late.lateOnly()).toBeGreaterThan(0);
      expect(late.websocket!.size()).toBe(late.watched() - late.lateOnly());
      const signature = await solana.pay({ to: deposit.receiveAddress, amount: 2_000_000n });
      await late.poll(); // within the late pace: the account is not read
      await Bun.sleep(300);
      expect(await creditsOf(deposit.id)).toEqual([]);
      await Bun.sleep(1_500);
      await late.poll();
      expect(await creditsOf(deposit.id)).toEqual([{ signature, amount: "2000000", found_by: "poll", finalized: false }]);
      await finalize();
      expect(await status(deposit.id)).toMatchObject({ status: "expired", amountReceived: "2", lateAmount: "2", excessOwed: "2" });
    } finally {
      await late.stop();
    }
  });

  test("a late scan that fails waits for the next late pass: it does not put every late account back on every poll", async () => {
    const [failing, other] = [await create("/api/v1/deposits/create", "1"), await create("/api/v1/deposits/create", "1")];
    await closedMinutesAgo(failing.id, 120);
    await closedMinutesAgo(other.id, 120);
    // The accounts the subscriber lists signatures of (a deposit's token account).
    const watchedRows = await paymentsToWatch(api.db, network().chainId, { afterCloseMs: 72 * 3_600_000, everyPollAfterCloseMs: 3_600_000 });
    const scanOf = (id: string) => watchOf(network(), watchedRows.find((p) => p.id === id)!).scan;
    const [failingScan, otherScan] = [scanOf(failing.id), scanOf(other.id)];
    const asked = new Map<string, number>();
    const proxy = rewritingProxy(solana.chain.rpcUrl, (call, answer) => {
      if (call.method !== "getSignaturesForAddress") return answer;
      const address = String(call.params?.[0]);
      asked.set(address, (asked.get(address) ?? 0) + 1);
      return address === failingScan ? ({ id: answer.id, jsonrpc: "2.0", error: { code: -32005, message: "node is behind" } } as unknown as typeof answer) : answer;
    });
    const late = startChainSubscriber({ config: api.config, db: api.db, logger, network: { ...network(), rpcUrl: proxy.url }, channel: INDEXED_CHANNEL, websocket: false });
    try {
      await late.ready; // the first poll: every account, the late ones included, one of them failing
      const [failingBefore, otherBefore] = [asked.get(failingScan) ?? 0, asked.get(otherScan) ?? 0];
      expect([failingBefore > 0, otherBefore > 0]).toEqual([true, true]);
      await late.poll();
      await late.poll();
      expect([asked.get(failingScan), asked.get(otherScan)]).toEqual([failingBefore, otherBefore]);
    } finally {
      await late.stop();
      proxy.stop();
    }
  });
});

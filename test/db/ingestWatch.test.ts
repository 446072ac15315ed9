import { buildConfig } from "../../plugins/config.ts";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createPublicClient, http } from "viem";
import { type Config } from "../../config/index.ts";
import { createLogger } from "../../config/logger.ts";
import { createDb, queryRows, type DbHandle } from "../../db/client.ts";
import { recordIngestCheck } from "../../db/ingestWatch.ts";
import { startRpcProxy } from "../../harness/rpcProxy.ts";
import { createMerchant } from "../../db/merchants.ts";
import { startAnvil } from "@stablepay/devchain/evm";
import { reconcilePayments, watchIngest } from "../../reconcile/index.ts";
import { createTestDatabase, type TestDatabase } from "../../harness/database.ts";
import { anvilNetwork, createPonderCheckpointTable, setIndexedBlock } from "../../harness/fixtures.ts";
import { insertPaymentRows, paymentRowFactory } from "../../harness/paymentRows.ts";

/**
 * Indexer-aware expiry on a real Postgres: the watch's record of each chain (stalls,
 * extensions, caught-up time) and reconcile's expiry waiting for the evidence to reach
 * the deadline — the indexer's block time, held back by a stall.
 */
let database: TestDatabase;
let handle: DbHandle;
let config: Config;
let merchantId: string;
const VIEWS = "watch_views";
const CHAIN = "31337";
const T0 = Date.parse("2026-05-01T12:00:00Z");
const at = (minutes: number) => new Date(T0 + minutes * 60_000);
const maxLag = 5n;

beforeAll(async () => {
  database = await createTestDatabase();
  handle = createDb(database.url, { max: 3 });
  config = buildConfig(
    { APP_ENV: "test", DATABASE_URL: database.url, INDEXER_VIEWS_SCHEMA: VIEWS },
    { extraNetworks: [anvilNetwork("http://127.0.0.1:1", { requiredConfirmations: 1 }), anvilNetwork("http://127.0.0.1:1", { shortName: "anvil-2", name: "Anvil 2", chainId: "31338" })] },
  );
  await createPonderCheckpointTable(handle.db, VIEWS);
  merchantId = (await createMerchant(handle.db, { name: "Watch" })).id;
});

afterAll(async () => {
  await handle?.close();
  await database?.drop();
});

const row = () => paymentRowFactory(config);
const expiresOf = async (id: string) => {
  const [r] = await queryRows<{ expires_at: Date; status: string }>(handle.db, sql`select expires_at, status from payments where id = ${id}`);
  return { expiresAt: new Date(r!.expires_at), status: r!.status };
};
const watchRow = async () => (await queryRows<{ stalled_since: Date | null; caught_up_at: Date | null; lag: string | null }>(handle.db, sql`select stalled_since, caught_up_at, lag::text from ingest_watch where chain_id = ${CHAIN}`))[0];
const check = (minutes: number, lag: bigint | null, currentUntil: Date | null = null) => recordIngestCheck(handle.db, { chainId: CHAIN, at: at(minutes), lag, maxLag, currentUntil });

describe("the watch's record of a chain", () => {
  test("within the allowed lag nothing stalls; at the head it records the time; behind opens one stall, however often it is seen", async () => {
    expect(await check(0, 3n)).toEqual({ opened: false, closed: null });
    expect(await watchRow()).toEqual({ stalled_since: null, caught_up_at: null, lag: "3" });
    await check(1, 0n);
    expect(new Date((await watchRow())!.caught_up_at!)).toEqual(at(1));
    // Seen at at(3), but the indexer's last block was stamped at(2): the stall began then.
    expect(await check(3, 6n, at(2))).toEqual({ opened: true, closed: null });
    expect(await check(3, 40n, at(1))).toEqual({ opened: false, closed: null });
    expect(await check(4, null)).toEqual({ opened: false, closed: null }); // the node unreadable: still stalled
    const w = await watchRow();
    expect(new Date(w!.stalled_since!)).toEqual(at(2));
    expect(new Date(w!.caught_up_at!)).toEqual(at(1));
    expect(w!.lag).toBeNull();
  });

  test("catching up extends each open payment on the chain by the time the stall overlapped it, once", async () => {
    // The stall opened at at(2) (above); it ends at at(62).
    const make = (over: Parameters<ReturnType<typeof row>>[1]) => row()(merchantId, over);
    const [before, during, expiredEarlier, completed, cancelled, otherChain, crossChain] = await insertPaymentRows(handle.db, [
      make({ createdAt: at(-20), expiresAt: at(10) }), // open through the whole stall: +60 min
      make({ createdAt: at(30), expiresAt: at(60) }), // created during it: +32 min
      make({ createdAt: at(-60), expiresAt: at(1), status: "expired" }), // its deadline was before the stall
      make({ createdAt: at(-10), expiresAt: at(20), status: "completed" }),
      make({ createdAt: at(-10), expiresAt: at(20), closedStatus: "cancelled", closedAt: at(5), status: "cancelled" }),
      make({ network: "anvil-2", createdAt: at(-10), expiresAt: at(20) }),
      // BUG: a cross-chain payment was extended too, though its customer pays on the origin chain
      // and the bridge keeps the deadline it was quoted: paid in the extension, it was refunded.
      make({ kind: "cross_chain", createdAt: at(-20), expiresAt: at(10) }),
    ]);
    const [first, second] = await Promise.all([check(62, 1n), check(62, 0n)]);
    const closing = [first!, second!].filter((r) => r.closed);
    expect(closing).toHaveLength(1);
    expect(new Set(closing[0]!.closed!.extended)).toEqual(new Set([before!.id!, during!.id!]));
    expect(closing[0]!.closed!.since).toEqual(at(2));
    expect((await expiresOf(before!.id!)).expiresAt).toEqual(at(70));
    expect((await expiresOf(during!.id!)).expiresAt).toEqual(at(92));
    for (const [p, was] of [[expiredEarlier, at(1)], [completed, at(20)], [cancelled, at(20)], [otherChain, at(20)], [crossChain, at(10)]] as const) {
      expect((await expiresOf(p!.id!)).expiresAt).toEqual(was);
    }
    expect(await check(63, 0n)).toEqual({ opened: false, closed: null });
    expect((await expiresOf(before!.id!)).expiresAt).toEqual(at(70));
    expect((await watchRow())!.stalled_since).toBeNull();
  });
});

describe("expiry waits for the evidence", () => {
  const chain = { name: "anvil", chainId: 31337 };
  const reconcileAt = async (id: string, minutes: number) => (await reconcilePayments(handle.db, config, [id], at(minutes))).get(id)!.after.status;
  const expiredEvents = async (id: string) =>
    (await queryRows<{ n: number }>(handle.db, sql`select count(*)::int as n from payment_events where payment_id = ${id} and type = 'payment.expired'`))[0]!.n;

  test("an indexer whose last block is stamped before the deadline holds expiry; one past it expires the payment once", async () => {
    await handle.db.execute(sql`delete from ingest_watch`);
    const [p] = await insertPaymentRows(handle.db, [row()(merchantId, { createdAt: at(100), expiresAt: at(130) })]);
    await setIndexedBlock(handle.db, VIEWS, chain, 1_000, at(125));
    expect(await reconcileAt(p!.id!, 140)).toBe("pending");
    expect(await expiredEvents(p!.id!)).toBe(0);
    // Stamped at the deadline's own second: another block of that second may still be unread.
    await setIndexedBlock(handle.db, VIEWS, chain, 1_010, at(130));
    expect(await reconcileAt(p!.id!, 141)).toBe("pending");
    await setIndexedBlock(handle.db, VIEWS, chain, 1_011, new Date(at(130).getTime() + 1_000));
    expect(await reconcileAt(p!.id!, 141)).toBe("expired");
    expect(await reconcileAt(p!.id!, 142)).toBe("expired");
    expect(await expiredEvents(p!.id!)).toBe(1);
  });

  test("a quiet chain: the watch found the indexer at the head after the deadline, so it expires though the last block is older", async () => {
    const [p] = await insertPaymentRows(handle.db, [row()(merchantId, { createdAt: at(200), expiresAt: at(230) })]);
    await setIndexedBlock(handle.db, VIEWS, chain, 1_020, at(210));
    expect(await reconcileAt(p!.id!, 235)).toBe("pending");
    await check(231, 0n);
    expect(await reconcileAt(p!.id!, 236)).toBe("expired");
  });

  test("found at the head moments after the deadline: a block stamped before it may still be arriving, so it waits", async () => {
    const [p] = await insertPaymentRows(handle.db, [row()(merchantId, { createdAt: at(240), expiresAt: at(270) })]);
    await setIndexedBlock(handle.db, VIEWS, chain, 1_025, at(250));
    await recordIngestCheck(handle.db, { chainId: CHAIN, at: new Date(at(270).getTime() + 10_000), lag: 0n, maxLag, currentUntil: null });
    expect(await reconcileAt(p!.id!, 271)).toBe("pending");
    await check(271, 0n); // a minute on, still at the head: nothing stamped before the deadline can still be on its way
    expect(await reconcileAt(p!.id!, 272)).toBe("expired");
  });

  // BUG: a stall opening after a payment had expired held the horizon back before its
  // deadline, and the next reconcile took it back to pending without an event (and expired
  // it again later: a second payment.expired).
  test("an expired payment stays expired when a stall opens afterwards: one payment.expired", async () => {
    await handle.db.execute(sql`delete from ingest_watch`);
    try {
      const [p] = await insertPaymentRows(handle.db, [row()(merchantId, { createdAt: at(400), expiresAt: at(430) })]);
      await setIndexedBlock(handle.db, VIEWS, chain, 1_050, at(431));
      expect(await reconcileAt(p!.id!, 432)).toBe("expired");
      await check(433, 50n, at(425)); // stalled since at(425), before the deadline
      expect(await reconcileAt(p!.id!, 434)).toBe("expired");
      await check(436, 0n); // caught up
      expect(await reconcileAt(p!.id!, 437)).toBe("expired");
      expect(await expiredEvents(p!.id!)).toBe(1);
    } finally {
      await handle.db.execute(sql`delete from ingest_watch`);
    }
  });

  // BUG: a reconcile took its time before it had the payments' locks: one that waited on a
  // lock while another run expired the payment judged it at an earlier moment — pending again.
  test("a reconcile that waited for the lock while the deadline passed judges the payment at the time it got the lock", async () => {
    await handle.db.execute(sql`delete from ingest_watch`);
    const [dbNow] = await queryRows<{ now: Date }>(handle.db, sql`select now() as now`);
    const deadline = new Date(new Date(dbNow!.now).getTime() + 1_000);
    const [p] = await insertPaymentRows(handle.db, [row()(merchantId, { createdAt: new Date(deadline.getTime() - 60_000), expiresAt: deadline })]);
    await setIndexedBlock(handle.db, VIEWS, chain, 1_060, new Date(deadline.getTime() + 3_600_000)); // the chain read past the deadline
    const waiting = await handle.db.transaction(async (tx) => {
      await tx.execute(sql`select 1 from payments where id = ${p!.id!} for update`);
      const waiting = reconcilePayments(handle.db, config, [p!.id!]); // called before the deadline; waits for the lock
      await Bun.sleep(1_500);
      // Meanwhile the deadline passed, and another run expired the payment.
      await tx.execute(sql`update payments set status = 'expired', amount_remaining = 0 where id = ${p!.id!}`);
      return { waiting };
    });
    expect((await waiting.waiting).get(p!.id!)!.after.status).toBe("expired");
  });

  test("an open stall holds expiry even when the indexed block is past the deadline", async () => {
    const [p] = await insertPaymentRows(handle.db, [row()(merchantId, { createdAt: at(300), expiresAt: at(330) })]);
    await check(322, 50n, at(320)); // stalled since at(320), before the deadline
    await setIndexedBlock(handle.db, VIEWS, chain, 1_030, at(335));
    expect(await reconcileAt(p!.id!, 340)).toBe("pending");
    await check(350, 0n); // caught up: the payment gets the 30 minutes back
    expect((await expiresOf(p!.id!)).expiresAt).toEqual(at(360));
    expect(await reconcileAt(p!.id!, 355)).toBe("pending");
    await setIndexedBlock(handle.db, VIEWS, chain, 1_040, at(361));
    expect(await reconcileAt(p!.id!, 362)).toBe("expired");
  });

  test("a chain with no bound at all (no indexer checkpoint, no watch) expires by the clock", async () => {
    const [p] = await insertPaymentRows(handle.db, [row()(merchantId, { network: "anvil-2", createdAt: at(400), expiresAt: at(430) })]);
    expect(await reconcileAt(p!.id!, 431)).toBe("expired");
  });
});

// BUG: a node 30 s to NODE_STALE_AFTER_SECONDS behind (not yet "stuck") with ingest at its head
// counted as current up to the check less the arrival margin: a payment paid in time in a block
// the node had not received yet met `payment.expired`.
describe("a node behind, not yet stuck", () => {
  test("ingest at its head is current up to its newest block, not up to the check", async () => {
    const anvil = await startAnvil({ chainId: 31_341 });
    try {
      const laggingConfig = buildConfig(
        { APP_ENV: "test", DATABASE_URL: database.url, INDEXER_VIEWS_SCHEMA: VIEWS },
        { extraNetworks: [anvilNetwork(anvil.rpcUrl, { shortName: "lagging", name: "Lagging", chainId: "31341", isLocal: false, requiredConfirmations: 1 })] },
      );
      const ctx = { config: laggingConfig, db: handle.db, logger: createLogger({ level: "silent" }) };
      const client = createPublicClient({ transport: http(anvil.rpcUrl) });
      const headAt = new Date(Number((await client.getBlock({ blockNumber: 0n })).timestamp) * 1000);
      const after = (seconds: number) => new Date(headAt.getTime() + seconds * 1000);
      const [p] = await insertPaymentRows(handle.db, [paymentRowFactory(laggingConfig)(merchantId, { network: "lagging", createdAt: after(-60), expiresAt: after(20) })]);
      await setIndexedBlock(handle.db, VIEWS, { name: "lagging", chainId: 31_341 }, 0, headAt);

      // BUG: a head whose time could not be read counted as "current now", and the record only moves forward.
      const proxy = startRpcProxy(anvil.rpcUrl);
      try {
        proxy.fail(["eth_getBlockByNumber"]);
        const viaProxy = { ...laggingConfig, networks: laggingConfig.networks.map((n) => (n.shortName === "lagging" ? { ...n, rpcUrl: proxy.url } : n)) };
        await watchIngest({ ...ctx, config: viaProxy }, after(90));
        expect((await reconcilePayments(handle.db, laggingConfig, [p!.id!], after(91))).get(p!.id!)!.after.status).toBe("pending");
      } finally {
        await proxy.stop();
      }
      // 90 s on, the node's newest block is still block 0 (under the default 120 s: not stuck).
      await watchIngest(ctx, after(90));
      expect((await reconcilePayments(handle.db, laggingConfig, [p!.id!], after(91))).get(p!.id!)!.after.status).toBe("pending");
      // A block stamped past the deadline reaches the node and ingest: now the chain is known past it.
      await client.request({ method: "evm_setNextBlockTimestamp" as never, params: [Number(headAt.getTime() / 1000) + 85] as never });
      await client.request({ method: "evm_mine" as never, params: [] as never });
      await setIndexedBlock(handle.db, VIEWS, { name: "lagging", chainId: 31_341 }, 1, after(85));
      await watchIngest(ctx, after(92));
      expect((await reconcilePayments(handle.db, laggingConfig, [p!.id!], after(93))).get(p!.id!)!.after.status).toBe("expired");
    } finally {
      await anvil.stop();
    }
  });
});

describe("a node stuck at an old block", () => {
  // BUG: the watch judged "caught up" against the service's own node only. A node stuck at
  // an old block (answering, never moving) with ingest at that block read as "at the head",
  // so the horizon ran on with the clock and a payment paid in a block the node never saw expired.
  test("is a stall from its block's time, not proof every block until now is read; a block from a node that moves again ends it", async () => {
    const anvil = await startAnvil({ chainId: 31_339 });
    try {
      const stuckConfig = buildConfig(
        { APP_ENV: "test", DATABASE_URL: database.url, INDEXER_VIEWS_SCHEMA: VIEWS, NODE_STALE_AFTER_SECONDS: "60" },
        { extraNetworks: [anvilNetwork(anvil.rpcUrl, { shortName: "remote", name: "Remote", chainId: "31339", isLocal: false, requiredConfirmations: 1 })] },
      );
      const ctx = { config: stuckConfig, db: handle.db, logger: createLogger({ level: "silent" }) };
      const client = createPublicClient({ transport: http(anvil.rpcUrl) });
      const genesis = await client.getBlock({ blockNumber: 0n });
      const headAt = new Date(Number(genesis.timestamp) * 1000);
      const after = (seconds: number) => new Date(headAt.getTime() + seconds * 1000);
      const remote = { name: "remote", chainId: 31_339 };
      const watched = async () => (await queryRows<{ stalled_since: Date | null }>(handle.db, sql`select stalled_since from ingest_watch where chain_id = '31339'`))[0];
      const [p] = await insertPaymentRows(handle.db, [paymentRowFactory(stuckConfig)(merchantId, { network: "remote", createdAt: after(-60), expiresAt: after(60) })]);
      await setIndexedBlock(handle.db, VIEWS, remote, 0, headAt);

      await watchIngest(ctx, after(10)); // a fresh head: at it, ingest is current
      expect(await watched()).toEqual({ stalled_since: null });
      // Two minutes on the node still answers block 0: no proof of anything after it.
      await watchIngest(ctx, after(120));
      expect(new Date((await watched())!.stalled_since!)).toEqual(headAt);
      expect((await reconcilePayments(handle.db, stuckConfig, [p!.id!], after(121))).get(p!.id!)!.after.status).toBe("pending");

      // The node moves again (a block stamped now), ingest reads it: the stall ends, the payment gets the time back.
      await client.request({ method: "evm_setNextBlockTimestamp" as never, params: [Number(genesis.timestamp) + 118] as never });
      await client.request({ method: "evm_mine" as never, params: [] as never });
      await setIndexedBlock(handle.db, VIEWS, remote, 1, after(118));
      await watchIngest(ctx, after(120));
      expect(await watched()).toEqual({ stalled_since: null });
      expect((await expiresOf(p!.id!)).expiresAt).toEqual(after(180));
    } finally {
      await anvil.stop();
    }
  });
});

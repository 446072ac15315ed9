import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../db/client.ts";
import { watchIngest } from "../../reconcile/index.ts";
import { startIsolatedChains } from "../../harness/isolatedChains.ts";

/**
 * Issue 44: EVM chains fail alone. Two anvils, each indexed by its own Ponder; chain B is
 * reached through a proxy that plays its node dead (connections refused), and B's Ponder is
 * killed meanwhile, so its supervisor keeps trying to start it against a dead node. Chain A's
 * payments complete as usual, B's open payment (paid meanwhile) neither completes nor expires
 * and `/payments/health` names B; the node back, B's Ponder is started again by its
 * supervisor, the payment completes, and nothing is credited twice.
 */
let s: Awaited<ReturnType<typeof startIsolatedChains>>;

beforeAll(async () => {
  s = await startIsolatedChains();
}, 150_000);

afterAll(async () => {
  await s?.stop();
});

test("chain B's node dead: A's payments complete within 60 s, B's waits (not expired, not completed), then completes once, after", async () => {
  const onB = await s.create("anvil-2", "7");
  const ponderOfB = s.indexer.chains.find((c) => c.chainId === "31338")!;
  const pidBefore = ponderOfB.pid();
  await s.proxy.inject("refuse");
  const deadAt = Date.now();
  // Ponder exits when its database drops, among others: started again while its node is down, it
  // cannot start (one Ponder for all chains stopped every chain there). B's alone is killed here.
  process.kill(pidBefore!, "SIGKILL");
  await s.pay(s.b, onB); // straight to B's node: the customer's wallet does not go through the service

  const onA = await Promise.all(["1", "2", "3", "4", "5"].map((amount) => s.create("anvil", amount)));
  // Spread over the outage: A's payments go on while B's Ponder cannot start.
  for (const p of onA) {
    await Bun.sleep(6_000);
    await s.pay(s.a, p);
    const paidAt = Date.now();
    await s.completedWithin(p.id, 60_000);
    expect(Date.now() - paidAt).toBeLessThan(60_000);
  }
  expect(Date.now() - deadAt).toBeGreaterThan(30_000);
  expect(ponderOfB.pid()).not.toBe(pidBefore);

  // B's payment is held: its node cannot be read, so the watch records a stall (expiry waits) on B alone.
  await watchIngest({ config: s.api.config, db: s.api.db, logger: s.logger });
  const watch = await queryRows<{ chain_id: string; stalled: boolean }>(s.api.db, sql`select chain_id, stalled_since is not null as stalled from ingest_watch order by chain_id`);
  expect(watch.find((w) => w.chain_id === "31338")?.stalled).toBe(true);
  expect(watch.find((w) => w.chain_id === "31337")?.stalled ?? false).toBe(false);
  expect(await s.statusOf(onB.id)).toMatchObject({ status: "pending", amountReceived: "0" });
  const h = await s.health();
  expect(h.chains.find((c) => c.chainId === "31338")).toMatchObject({ rpcReachable: false, payable: false });
  expect(h.chains.find((c) => c.chainId === "31337")).toMatchObject({ rpcReachable: true, payable: true });

  // The node is back: B's supervisor starts its Ponder again (backoff ≤ 15 s), which reads what it missed.
  s.proxy.heal();
  await s.completedWithin(onB.id, 60_000);
  expect(await s.statusOf(onB.id)).toMatchObject({ status: "completed", amountReceived: "7" });
  for (const [i, p] of onA.entries()) expect(await s.statusOf(p.id)).toMatchObject({ status: "completed", amountReceived: String(i + 1) });
  const completions = await s.completions();
  expect(completions.size).toBe(6);
  expect([...completions.values()].every((n) => n === 1)).toBe(true);
}, 240_000);

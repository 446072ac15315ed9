import { afterAll, beforeAll, expect, test } from "bun:test";
import type { RpcFault } from "../../harness/faultRpcProxy.ts";
import { startIsolatedChains, type Payment } from "../../harness/isolatedChains.ts";

/**
 * Issue 44: one chain's node misbehaving stalls only that chain. In front of chain B's node a
 * proxy injects, one after another: refused connections, 5xx, truncated JSON, a stuck head, 429s
 * with Retry-After, answers slower than the RPC timeout, and the wrong chain id (B's Ponder is
 * killed at the start of some, so its supervisor must start it against the faulty node).
 * Meanwhile a payment on chain A completes as usual; B's payment, paid straight to B's node, does
 * not complete while its node cannot be believed (except on the wrong chain id, which a running
 * Ponder does not ask again), and where B's node cannot be read its checkout view says "network
 * delayed"; once the fault ends it completes within 30 s, and nothing completes twice. (The notice's
 * end is test/api/routes/networkDelayed.test.ts's: here it waits for the worker's next watch, ≤ 30 s.)
 */
const FAULTS: Array<{ fault: RpcFault; killPonder: boolean; heldWhileFaulty: boolean; delayedWhileFaulty?: boolean }> = [
  { fault: "refuse", killPonder: true, heldWhileFaulty: true, delayedWhileFaulty: true },
  { fault: "error5xx", killPonder: false, heldWhileFaulty: true, delayedWhileFaulty: true },
  { fault: "truncated", killPonder: false, heldWhileFaulty: true, delayedWhileFaulty: true },
  { fault: "stuckHead", killPonder: false, heldWhileFaulty: true },
  { fault: "rateLimited", killPonder: false, heldWhileFaulty: true, delayedWhileFaulty: true },
  { fault: "slow", killPonder: false, heldWhileFaulty: true, delayedWhileFaulty: true },
  { fault: "wrongChain", killPonder: true, heldWhileFaulty: false },
];

const chainStates = async () =>
  ((await s.api.request("/api/v1/payments/health")).body.chains as Array<Record<string, unknown>>).map(({ network, state, since, lag, headBlock, indexedBlock, error }) => ({ network, state, since, lag, headBlock, indexedBlock, error }));
const networkDelayed = async (id: string) => (await s.api.request(`/api/v1/payments/public/${id}`)).body.payment.networkDelayed as boolean;
/** The checkout view's `networkDelayed` once it is `want` (it is re-read in the background). */
async function delayedBecomes(id: string, want: boolean, ms: number) {
  const until = Date.now() + ms;
  while ((await networkDelayed(id)) !== want) {
    if (Date.now() > until) throw new Error(`payment ${id}: networkDelayed not ${want} within ${ms} ms; health: ${JSON.stringify(await chainStates())}`);
    await Bun.sleep(100);
  }
}

let s: Awaited<ReturnType<typeof startIsolatedChains>>;
const onB = new Map<RpcFault, Payment>();

beforeAll(async () => {
  s = await startIsolatedChains();
  // Created while B is healthy: a chain that cannot be read is not payable.
  for (const [i, f] of FAULTS.entries()) onB.set(f.fault, await s.create("anvil-2", String(i + 1)));
}, 150_000);

afterAll(async () => {
  await s?.stop();
}, 60_000);

for (const [i, { fault, killPonder, heldWhileFaulty, delayedWhileFaulty }] of FAULTS.entries()) {
  test(`B's node: ${fault} — A completes as usual; B catches up within 30 s after, once`, async () => {
    const paymentOnB = onB.get(fault)!;
    await s.proxy.inject(fault);
    if (killPonder) {
      const pid = s.indexer.chains.find((c) => c.chainId === "31338")!.pid();
      if (pid) process.kill(pid, "SIGKILL");
    }
    await s.pay(s.b, paymentOnB);
    const onA = await s.create("anvil", String(10 + i));
    await s.pay(s.a, onA);
    const paidAt = Date.now();
    await s.completedWithin(onA.id, 20_000);
    console.log(`${fault}: A's payment completed ${Date.now() - paidAt} ms after payment`);
    await Bun.sleep(Math.max(0, 4_000 - (Date.now() - paidAt)));
    if (heldWhileFaulty) expect(await s.statusOf(paymentOnB.id)).toMatchObject({ status: "pending", amountReceived: "0" });
    expect((await s.statusOf(paymentOnB.id)).status).not.toBe("expired");
    // B's node cannot be read: /payments/health names B down, and B's checkout says so.
    if (delayedWhileFaulty) await delayedBecomes(paymentOnB.id, true, 5_000);

    s.proxy.heal();
    const healedAt = Date.now();
    await s.completedWithin(paymentOnB.id, 30_000);
    console.log(`${fault}: B caught up ${Date.now() - healedAt} ms after the fault ended`);
    expect(await s.statusOf(paymentOnB.id)).toMatchObject({ status: "completed", amountReceived: String(i + 1) });
    const completions = await s.completions();
    expect(completions.get(paymentOnB.id)).toBe(1);
    expect(completions.get(onA.id)).toBe(1);
  }, 90_000);
}

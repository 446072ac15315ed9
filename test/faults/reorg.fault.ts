import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { Address, Hex } from "viem";
import { queryRows } from "../../db/client.ts";
import { startFaultStack, type FaultStack } from "./lib/stack.ts";

/**
 * Issue 16: reorgs of depth 1 to 5 across a paid deposit payment, on a chain needing 3
 * confirmations and final after 10 blocks. Depths 1–2 land inside the confirmation window
 * (the payment was `confirming`): it goes back to pending. Depths 3–5 land beyond it (the
 * payment was `completed`): it goes back too, flagged as reverted after completion. Either
 * way `payment.reverted` is recorded, nothing is swept before finality, and paid again the
 * payment completes exactly once more and is swept exactly once.
 */
const REQUIRED = 3;
const FINALITY = 10;
const UNITS = 1_000_000n;

let stack: FaultStack;
beforeAll(async () => {
  // Blocks only when the test mines them: each reorg's depth is exact.
  stack = await startFaultStack({ requiredConfirmations: REQUIRED, finalityBlocks: FINALITY, blockEveryMs: null });
}, 180_000);
afterAll(async () => {
  await stack?.stop();
}, 60_000);

const statusOf = async (id: string) => (await stack.request(`/api/v1/deposits/status/${id}`, { headers: stack.publicHeaders })).body.payment;
const eventsOf = async (id: string) =>
  queryRows<{ type: string; payload: { reverted?: { afterCompletion: boolean } } }>(stack.db, sql`select type, payload from payment_events where payment_id = ${id} order by sequence`);
const sweepsOf = async (id: string) => queryRows<{ status: string }>(stack.db, sql`select status from transfers_out where payment_id = ${id} and kind = 'sweep'`);

for (const depth of [1, 2, 3, 4, 5]) {
  const beyond = depth >= REQUIRED;
  test(`a ${depth}-block reorg ${beyond ? "beyond" : "inside"} the confirmation window`, async () => {
    const deposit = await stack.createDeposit("1");
    const { id, depositAddress } = deposit as { id: string; depositAddress: Address };

    const snapshot = await stack.chain.rpc<Hex>("evm_snapshot");
    await stack.pay(depositAddress, UNITS); // its own block: 1 confirmation
    await stack.chain.mine(depth - 1); // `depth` confirmations: the reorg below removes exactly `depth` blocks
    const before = beyond ? "completed" : "confirming";
    await stack.until(`status ${before}`, async () => ((await statusOf(id)).status === before ? true : undefined), 30_000);
    // Not final: nothing forwarded.
    expect(await sweepsOf(id)).toEqual([]);

    await stack.chain.rpc("evm_revert", [snapshot]);
    await stack.chain.mine(depth + 1); // a longer chain without the payment
    const reverted = await stack.until("the revert", async () => {
      const s = await statusOf(id);
      return s.status === "pending" ? s : undefined;
    });
    expect(reverted).toMatchObject({ status: "pending", amountReceived: "0" });
    const events = await eventsOf(id);
    const revertedEvents = events.filter((e) => e.type === "payment.reverted");
    expect(revertedEvents).toHaveLength(1);
    expect(revertedEvents[0]!.payload.reverted?.afterCompletion ?? false).toBe(beyond);
    expect(await sweepsOf(id)).toEqual([]);
    expect((await stack.transfersFrom(depositAddress)).length).toBe(0);

    // Paid again: completes (once more), and once final is swept exactly once.
    await stack.pay(depositAddress, UNITS);
    await stack.chain.mine(REQUIRED);
    await stack.until("completion again", async () => ((await statusOf(id)).status === "completed" ? true : undefined), 30_000);
    await stack.chain.mine(FINALITY);
    await stack.until("the sweep", async () => ((await sweepsOf(id)).some((r) => r.status === "confirmed") ? true : undefined), 40_000);
    await stack.chain.mine(2);
    await Bun.sleep(1_000);
    expect(await sweepsOf(id)).toEqual([{ status: "confirmed" }]);
    expect((await stack.transfersFrom(depositAddress)).length).toBe(1);
    const completed = (await eventsOf(id)).filter((e) => e.type === "payment.completed").length;
    expect(completed).toBe(beyond ? 2 : 1);
  }, 150_000);
}

import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { Address } from "viem";
import { queryRows } from "../../db/client.ts";
import { startFaultStack, type FaultStack } from "./lib/stack.ts";

/**
 * Issue 16: Redis SIGKILLed while deposit payments are created, paid and swept, and
 * started again (empty: no persistence) 30 s later, as the issue asks: long enough for every
 * client's reconnect backoff to reach its ceiling and for BullMQ's job locks to lapse.
 */
const REDIS_DOWN_MS = 30_000;
const UNITS = 2_000_000n;
const OPERATOR_TOKEN = "fault-operator-token-0123456789";

let stack: FaultStack;
beforeAll(async () => {
  stack = await startFaultStack({ env: { OPERATOR_TOKEN } });
}, 180_000);
afterAll(async () => {
  await stack?.stop();
}, 60_000);

test("Redis killed mid-traffic: creates answer 201 fast, reads answer, health 503; after it returns every paid payment completes and is swept once", async () => {
  const created: Array<{ id: string; depositAddress: Address }> = [];
  const paid = new Set<string>();
  const bad: string[] = [];

  // Before the outage: some deposits created, some paid (their completion and sweep in flight).
  for (let i = 0; i < 4; i++) created.push(await stack.createDeposit("2"));
  for (const d of created.slice(0, 2)) {
    await stack.pay(d.depositAddress, UNITS);
    paid.add(d.id);
  }

  await stack.redis.kill();
  const down = Date.now();
  let health503 = 0;
  while (Date.now() - down < REDIS_DOWN_MS) {
    const r = await stack.request("/api/v1/deposits/create", { headers: stack.publicHeaders, body: { amount: "2", currency: "USDC", network: "anvil", orderId: `redis-down-${created.length}` } });
    if (r.status !== 201 || r.ms > 2_000) bad.push(`create ${r.status} in ${Math.round(r.ms)} ms: ${JSON.stringify(r.body)}`);
    if (r.status === 201) created.push(r.body.payment);
    // Pay what was created before the outage and half of what is created during it.
    const next = created.find((d, i) => !paid.has(d.id) && (i < 4 || i % 2 === 0));
    if (next) {
      await stack.pay(next.depositAddress, UNITS);
      paid.add(next.id);
    }
    for (const d of created.slice(-3)) {
      const s = await stack.request(`/api/v1/deposits/status/${d.id}`, { headers: stack.publicHeaders });
      if (s.status !== 200 || s.ms > 1_000) bad.push(`status ${s.status} in ${Math.round(s.ms)} ms`);
    }
    // What needs Redis answers 503 promptly: health, the queue dashboard's data.
    const q = await stack.request("/admin/queues/api/queues?activeQueue=reconcile&page=1", { headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
    if (q.status !== 503 || q.ms > 2_000) bad.push(`dashboard ${q.status} in ${Math.round(q.ms)} ms`);
    const h = await stack.request("/api/health");
    if (h.status === 503 && h.ms < 3_000) health503++;
    else bad.push(`health ${h.status} in ${Math.round(h.ms)} ms`);
    await Bun.sleep(200);
  }
  expect(bad).toEqual([]);
  expect(health503).toBeGreaterThan(0);

  await stack.redis.start();
  const back = Date.now();

  // Every paid deposit completed within 30 s of Redis returning; the others still pending (none lost).
  const ids = created.map((d) => d.id);
  await stack.until(
    "every paid deposit completed",
    async () => {
      const s = await stack.statuses(ids);
      return [...paid].every((id) => s.get(id) === "completed") ? true : undefined;
    },
    30_000,
  );
  const completedWithin = Date.now() - back;
  const s = await stack.statuses(ids);
  expect(s.size).toBe(created.length);
  for (const d of created) expect(s.get(d.id)).toBe(paid.has(d.id) ? "completed" : "pending");

  // Swept exactly once each: one on-chain transfer out of each paid deposit address, one sweep row.
  await stack.until(
    "every paid deposit swept",
    async () => {
      const rows = await queryRows<{ n: number }>(stack.db, sql`select count(*)::int as n from transfers_out where kind = 'sweep' and status = 'confirmed'`);
      return rows[0]!.n >= paid.size ? true : undefined;
    },
    60_000,
  );
  for (const d of created.filter((d) => paid.has(d.id))) {
    const out = await stack.transfersFrom(d.depositAddress);
    const rows = await queryRows<{ n: number }>(stack.db, sql`select count(*)::int as n from transfers_out where payment_id = ${d.id} and kind = 'sweep'`);
    expect([out.length, rows[0]!.n]).toEqual([1, 1]);
  }
  // No role was restarted.
  expect(Object.values(stack.roles).map((r) => r.starts())).toEqual([1, 1, 1]);
  console.log(`redis fault: ${created.length} deposits (${paid.size} paid), all paid completed ${completedWithin} ms after Redis returned`);
}, 150_000);

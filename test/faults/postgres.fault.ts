import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { Address } from "viem";
import { queryRows } from "../../db/client.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../../harness/webhookReceiver.ts";
import { startFaultStack, type FaultStack } from "./lib/stack.ts";

/**
 * Issue 16: Postgres stopped with a fast shutdown and started again while deposits are
 * created, paid and swept and their webhooks delivered. The API answers 503 (never 500,
 * never a hang) during the outage and recovers within 30 s; no role is restarted; no
 * event, webhook delivery, credit or sweep is lost or duplicated (rows counted, and the
 * chain read).
 */
const PG_DOWN_MS = 5_000;
const UNITS = 3_000_000n;

let stack: FaultStack;
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = startWebhookReceiver();
  stack = await startFaultStack({ env: { WEBHOOK_REDRIVE_INTERVAL_MS: "2000" } });
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  receiver?.stop();
}, 60_000);

test("Postgres fast shutdown mid-traffic: 503 during, recovery without restarts, nothing lost or doubled", async () => {
  const created: Array<{ id: string; depositAddress: Address }> = [];
  const paid = new Set<string>();
  const answers = new Map<string, number>();
  const bad: string[] = [];
  const callbackUrl = receiver.url("/hooks");
  const create = async () => {
    const r = await stack.request("/api/v1/deposits/create", {
      headers: stack.publicHeaders,
      body: { amount: "3", currency: "USDC", network: "anvil", orderId: `pg-${Date.now()}-${Math.random()}`, callbackUrl },
    });
    if (r.status === 201) created.push(r.body.payment);
    return r;
  };
  for (let i = 0; i < 3; i++) expect((await create()).status).toBe(201);
  await stack.pay(created[0]!.depositAddress, UNITS);
  paid.add(created[0]!.id);

  let phase = "before";
  let running = true;
  let last503 = 0;
  const record = (route: string, r: { status: number; ms: number; body: unknown }) => {
    answers.set(`${phase} ${route} ${r.status}`, (answers.get(`${phase} ${route} ${r.status}`) ?? 0) + 1);
    if (r.status === 0 || (r.status >= 500 && r.status !== 503)) bad.push(`${phase} ${route} ${r.status} in ${Math.round(r.ms)} ms: ${JSON.stringify(r.body).slice(0, 300)}`);
    if (r.status === 503) last503 = Date.now();
  };
  const traffic = [
    (async () => {
      while (running) {
        record("create", await create());
        await Bun.sleep(100);
      }
    })(),
    (async () => {
      while (running) {
        const d = created[Math.floor(Math.random() * created.length)]!;
        record("status", await stack.request(`/api/v1/deposits/status/${d.id}`, { headers: stack.publicHeaders }));
        record("list", await stack.request("/api/v1/payments/merchant/list", { headers: stack.secretHeaders }));
        await Bun.sleep(50);
      }
    })(),
    (async () => {
      // The customer keeps paying (the chain does not care about the outage).
      while (running) {
        const next = created.find((d) => !paid.has(d.id));
        if (next) {
          await stack.pay(next.depositAddress, UNITS);
          paid.add(next.id);
        }
        await Bun.sleep(400);
      }
    })(),
  ];

  await Bun.sleep(2_000);
  phase = "down";
  await stack.pg.stop();
  await Bun.sleep(PG_DOWN_MS);
  phase = "after";
  await stack.pg.start();
  const back = Date.now();
  // Recovered: two seconds without a 503.
  while (Date.now() - back < 30_000 && Date.now() - Math.max(last503, back) < 2_000) await Bun.sleep(100);
  const recoveredIn = Math.max(0, last503 - back);
  await Bun.sleep(1_000);
  running = false;
  await Promise.all(traffic);

  expect(bad).toEqual([]);
  expect([...answers.keys()].some((k) => k.startsWith("down") && k.endsWith(" 503"))).toBe(true);
  expect(recoveredIn).toBeLessThan(30_000);
  // No role restarted or died.
  if (!Object.values(stack.roles).every((r) => r.alive())) stack.logs();
  expect(Object.values(stack.roles).map((r) => [r.role, r.starts(), r.alive()])).toEqual([
    ["api", 1, true],
    ["worker", 1, true],
    ["indexer", 1, true],
  ]);

  // Every paid deposit completes and is swept; unpaid ones stay pending.
  const ids = created.map((d) => d.id);
  await stack.until(
    "every paid deposit completed and swept",
    async () => {
      const s = await stack.statuses(ids);
      if (![...paid].every((id) => s.get(id) === "completed")) return undefined;
      const [swept] = await queryRows<{ n: number }>(stack.db, sql`select count(*)::int as n from transfers_out where kind = 'sweep' and status = 'confirmed'`);
      return swept!.n >= paid.size ? true : undefined;
    },
    60_000,
  );
  const s = await stack.statuses(ids);
  expect(s.size).toBe(created.length);
  for (const d of created) expect(s.get(d.id)).toBe(paid.has(d.id) ? "completed" : "pending");

  // Credits: what each payment received is what the chain sent it, from one indexed row per transfer.
  for (const d of created.filter((d) => paid.has(d.id))) {
    const [row] = await queryRows<{ received: string; indexed: number; sweeps: number }>(
      stack.db,
      sql`select p.amount_received::text as received,
            (select count(*)::int from ${sql.identifier(stack.config.indexer.viewsSchema)}.token_transfer t where lower(t."to") = lower(p.receive_address)) as indexed,
            (select count(*)::int from transfers_out o where o.payment_id = p.id and o.kind = 'sweep') as sweeps
          from payments p where p.id = ${d.id}`,
    );
    const [into, out] = await Promise.all([stack.transfersTo(d.depositAddress), stack.transfersFrom(d.depositAddress)]);
    expect({ received: row!.received, indexed: row!.indexed, sweeps: row!.sweeps, onChainIn: into.length, onChainOut: out.length }).toEqual({
      received: UNITS.toString(),
      indexed: 1,
      sweeps: 1,
      onChainIn: 1,
      onChainOut: 1,
    });
  }

  // Events: one of each kind per payment; one delivery per event, every one delivered.
  const dupes = await queryRows<{ payment_id: string; type: string; n: number }>(
    stack.db,
    sql`select payment_id, type, count(*)::int as n from payment_events group by payment_id, type having count(*) > 1`,
  );
  expect(dupes).toEqual([]);
  const [events] = await queryRows<{ created: number; completed: number; forwarded: number }>(
    stack.db,
    sql`select count(*) filter (where type = 'payment.created')::int as created, count(*) filter (where type = 'payment.completed')::int as completed,
               count(*) filter (where type = 'payment.forwarded')::int as forwarded from payment_events`,
  );
  expect(events).toEqual({ created: created.length, completed: paid.size, forwarded: paid.size });
  await stack.until(
    "every webhook delivered",
    async () => {
      const [d] = await queryRows<{ pending: number }>(stack.db, sql`select count(*) filter (where status <> 'delivered')::int as pending from webhook_deliveries`);
      return d!.pending === 0 ? true : undefined;
    },
    60_000,
  );
  const [deliveries] = await queryRows<{ rows: number; events: number; all: number }>(
    stack.db,
    sql`select count(*)::int as rows, count(distinct event_id)::int as events, (select count(*)::int from payment_events) as all from webhook_deliveries`,
  );
  expect(deliveries).toEqual({ rows: deliveries!.all, events: deliveries!.all, all: deliveries!.all });
  const receivedIds = receiver.at("/hooks").filter((r) => r.status === 200).map((r) => JSON.parse(r.body).id as string);
  const eventIds = (await queryRows<{ id: string }>(stack.db, sql`select id from payment_events`)).map((r) => r.id);
  expect([...new Set(receivedIds)].sort()).toEqual(eventIds.sort());
  console.log(
    `postgres fault: ${created.length} deposits (${paid.size} paid), last 503 ${recoveredIn} ms after Postgres returned; ` +
      `${eventIds.length} events, ${receivedIds.length} webhook requests received (${receivedIds.length - new Set(receivedIds).size} repeats, at-least-once); ` +
      `answers: ${JSON.stringify(Object.fromEntries(answers))}`,
  );
}, 180_000);

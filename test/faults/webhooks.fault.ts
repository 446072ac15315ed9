import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { queryRows } from "../../db/client.ts";
import { startFaultyReceiver, type Misbehaviour } from "./lib/faultyReceiver.ts";
import { startFaultStack, type FaultStack } from "./lib/stack.ts";

/**
 * Issue 16: webhook endpoints that time out, answer 500, close the connection, answer
 * 410, or never recover. Retries follow WEBHOOK_RETRY_SCHEDULE (shortened here to
 * seconds: every wait is at least its step and at most 10% more, plus the timeout where
 * the attempt hung), a 410 disables the endpoint, an endpoint that recovers gets every
 * event, one that never does gets exactly the schedule's attempts and is marked failed.
 */
const SCHEDULE_S = [1, 2, 2];
const TIMEOUT_MS = 1_000;
/** Slack on top of a wait's upper bound: the queue's polling, the worker's own latency. */
const SLACK_MS = 1_500;
const EVENTS = 3;

const behaviours: Record<string, (nth: number) => Misbehaviour> = {
  "/timeout": (nth) => (nth <= 2 ? { hang: true } : { status: 200 }),
  "/error": (nth) => (nth <= 2 ? { status: 500 } : { status: 200 }),
  "/close": (nth) => (nth <= 2 ? { close: true } : { status: 200 }),
  "/gone": () => ({ status: 410 }),
  "/down": () => ({ status: 503 }),
};

let stack: FaultStack;
let receiver: Awaited<ReturnType<typeof startFaultyReceiver>>;
beforeAll(async () => {
  receiver = await startFaultyReceiver((path, nth) => behaviours[path]!(nth));
  stack = await startFaultStack({
    env: { WEBHOOK_RETRY_SCHEDULE: SCHEDULE_S.join(","), WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WEBHOOK_REDRIVE_INTERVAL_MS: "1000" },
  });
}, 180_000);
afterAll(async () => {
  await stack?.stop();
  await receiver?.stop();
}, 60_000);

test("misbehaving receivers: retries on the schedule, 410 disables, nothing lost", async () => {
  const endpoints = new Map<string, string>();
  for (const path of Object.keys(behaviours)) {
    const r = await stack.request("/api/v1/webhook-endpoints", { headers: stack.secretHeaders, body: { url: receiver.url(path), events: ["payment.created"] } });
    expect(r.status).toBe(201);
    endpoints.set(path, r.body.endpoint.id);
  }
  const created: string[] = [];
  for (let i = 0; i < EVENTS; i++) created.push((await stack.createDeposit("1")).id);
  const eventIds = (await queryRows<{ id: string }>(stack.db, sql`select id from payment_events where type = 'payment.created'`)).map((r) => r.id).sort();
  expect(eventIds).toHaveLength(EVENTS);

  // Settled: the recovering endpoints delivered everything, the others are done for good.
  await stack.until(
    "every delivery settled",
    async () => {
      const [open] = await queryRows<{ n: number }>(stack.db, sql`select count(*)::int as n from webhook_deliveries where status = 'pending'`);
      return open!.n === 0 ? true : undefined;
    },
    60_000,
  );
  const rows = await queryRows<{ endpoint_id: string; event_id: string; status: string; attempts: number }>(
    stack.db,
    sql`select endpoint_id, event_id, status, attempts from webhook_deliveries`,
  );
  const byPath = (path: string) => rows.filter((r) => r.endpoint_id === endpoints.get(path));

  // Recovering endpoints: every event delivered, on the third attempt, one delivery row per event.
  for (const path of ["/timeout", "/error", "/close"]) {
    expect(byPath(path).map((r) => [r.event_id, r.status, r.attempts]).sort()).toEqual(eventIds.map((id) => [id, "delivered", 3]));
    const ok = receiver.requests.filter((r) => r.path === path && r.did === "200").map((r) => r.eventId).sort();
    expect(ok).toEqual(eventIds);
  }
  // Never recovering: exactly 1 + the schedule's attempts, then failed.
  expect(byPath("/down").map((r) => [r.status, r.attempts])).toEqual(eventIds.map(() => ["failed", SCHEDULE_S.length + 1]));

  // The waits between attempts of one event follow the schedule.
  const gaps: string[] = [];
  for (const path of ["/timeout", "/error", "/close", "/down"]) {
    for (const eventId of eventIds) {
      const attempts = receiver.requests.filter((r) => r.path === path && r.eventId === eventId);
      for (let i = 1; i < attempts.length; i++) {
        const waited = attempts[i]!.at - attempts[i - 1]!.at;
        const step = SCHEDULE_S[i - 1]! * 1_000;
        const hung = attempts[i - 1]!.did === "hang" ? TIMEOUT_MS : 0;
        const min = step + hung - 100;
        const max = step * 1.1 + hung + SLACK_MS;
        if (waited < min || waited > max) gaps.push(`${path} attempt ${i + 1}: waited ${waited} ms, expected ${min}..${max}`);
      }
    }
  }
  expect(gaps).toEqual([]);

  // 410: the endpoint is disabled; its deliveries end as disabled; nothing is sent to it afterwards.
  const list = await stack.request("/api/v1/webhook-endpoints", { headers: stack.secretHeaders });
  expect(list.status).toBe(200);
  const statusOf = (path: string) => list.body.endpoints.find((e: { id: string }) => e.id === endpoints.get(path))?.status;
  expect(Object.fromEntries(Object.keys(behaviours).map((p) => [p, statusOf(p)]))).toEqual({
    "/timeout": "enabled",
    "/error": "enabled",
    "/close": "enabled",
    "/gone": "disabled",
    "/down": "enabled",
  });
  expect(byPath("/gone").every((r) => r.status === "disabled")).toBe(true);
  const goneBefore = receiver.requests.filter((r) => r.path === "/gone").length;
  expect(goneBefore).toBeLessThanOrEqual(EVENTS);
  created.push((await stack.createDeposit("1")).id);
  await Bun.sleep(3_000);
  expect(receiver.requests.filter((r) => r.path === "/gone").length).toBe(goneBefore);
  // The healthy path still gets the new event (the other endpoints were not affected).
  await stack.until("the new event delivered to /error", async () => (receiver.requests.some((r) => r.path === "/error" && r.did === "200" && !eventIds.includes(r.eventId)) ? true : undefined), 20_000);
  console.log(`webhook fault: ${receiver.requests.length} requests; per-path attempts ${JSON.stringify(Object.fromEntries(Object.keys(behaviours).map((p) => [p, receiver.requests.filter((r) => r.path === p).length])))}`);
}, 180_000);

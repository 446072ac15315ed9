/**
 * Benchmark (not a test): `npm run bench:create -- [creates] [clients]`.
 * POST /payments/create over HTTP to the API started as production starts it
 * (`dist/role.js api`), from `clients` concurrent clients (64), each sending its next
 * create as soon as the last one answered. Prints creates/s and p50/p99, then checks the
 * idempotency guarantees on what was created: a replay with the same Idempotency-Key
 * answers the same payment (marked replayed), the same key sent by 64 clients at once
 * makes one payment, a key reused with another body is a 409, and the rows counted in
 * the database are exactly one payment and one `payment.created` event per key.
 */
import { sql } from "drizzle-orm";
import { queryRows } from "../db/client.ts";
import { benchStack, cpuSeconds, postgresCpuSeconds, rssMb } from "./lib/stack.ts";

const N = Number(process.argv[2] ?? 10_000);
const CLIENTS = Number(process.argv[3] ?? 64);
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil((p / 100) * xs.length) - 1)]!;

const stack = await benchStack({
  env: { ...(process.env.BENCH_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_LOG_LEVEL } : {}), ...(process.env.BENCH_POOL ? { DATABASE_POOL_SIZE: process.env.BENCH_POOL } : {}) },
});
const check = (ok: boolean, what: string) => {
  if (!ok) throw new Error(`idempotency check failed: ${what}`);
};
try {
  const merchant = await stack.seedMerchant();
  const api = await stack.startRole("api");
  const url = `${api.url}/api/v1/payments/create`;
  const headers = (key: string) => ({ "content-type": "application/json", "x-public-key": merchant.publicKey, "idempotency-key": key });
  const body = (i: number) => JSON.stringify({ amount: "1.5", currency: "USDC", network: "anvil", orderId: `bench-${i}` });
  const create = async (i: number, key = `create-${i}`) => {
    const r = await fetch(url, { method: "POST", headers: headers(key), body: body(i) });
    return { status: r.status, replayed: r.headers.get("idempotent-replayed") === "true", body: (await r.json()) as { payment?: { id: string } } };
  };
  // Warm-up (JIT, pools, prepared statements): not counted.
  for (let i = 0; i < 200; i += CLIENTS) await Promise.all(Array.from({ length: Math.min(CLIENTS, 200 - i) }, (_, j) => create(-1 - i - j)));

  const latencies: number[] = [];
  const ids = new Array<string>(N);
  let next = 0;
  // CPU per create of each party (Postgres backends of this database, the API, the load generator: this process).
  const cpuBefore = { postgres: await postgresCpuSeconds(stack.db), api: await cpuSeconds(api.pid), generator: process.cpuUsage() };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let i = next++; i < N; i = next++) {
        const t = performance.now();
        const r = await create(i);
        latencies.push(performance.now() - t);
        if (r.status !== 201) throw new Error(`create ${i}: ${r.status} ${JSON.stringify(r.body)}`);
        ids[i] = r.body.payment!.id;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const generatorCpu = process.cpuUsage(cpuBefore.generator);
  const perCreate = (cpu: number) => `${((cpu * 1e6) / N).toFixed(0)} µs`;
  const cpuLine = `CPU per create: Postgres ${perCreate((await postgresCpuSeconds(stack.db)) - cpuBefore.postgres)}, API ${perCreate((await cpuSeconds(api.pid)) - cpuBefore.api)} (all its threads), load generator ${perCreate((generatorCpu.user + generatorCpu.system) / 1e6)}`;
  console.log(`${N} creates in ${seconds.toFixed(2)} s (${(N / seconds).toFixed(0)}/s); checking idempotency…`);

  // Idempotency, after the load: replays answer the same payment, marked replayed.
  for (let i = 0; i < N; i += Math.max(1, Math.floor(N / 500))) {
    const r = await create(i);
    check(r.status === 201 && r.replayed && r.body.payment?.id === ids[i], `replay of create-${i}`);
  }
  // The same new key from every client at once: one payment, the others replay it (or wait for it).
  const burst = await Promise.all(Array.from({ length: CLIENTS }, () => create(N, "burst")));
  check(new Set(burst.map((r) => r.body.payment?.id)).size === 1 && burst.every((r) => r.status === 201), "64 concurrent requests with one key");
  check(burst.filter((r) => !r.replayed).length === 1, "exactly one of the burst is not a replay");
  // A key reused with a different body.
  check((await create(N + 1, "create-0")).status === 409, "key reused with another body → 409");
  const [counts] = await queryRows<{ payments: string; created: string; keys: string; distinct_ids: string }>(
    stack.db,
    sql`select (select count(*) from payments where order_id like 'bench-%')::text as payments,
               (select count(*) from payment_events e join payments p on p.id = e.payment_id where e.type = 'payment.created' and p.order_id like 'bench-%')::text as created,
               (select count(*) from idempotency_keys where merchant_id = ${merchant.id})::text as keys,
               (select count(distinct id) from payments)::text as distinct_ids`,
  );
  // N measured + 200 warm-up + 1 burst.
  const expected = N + 201;
  check(Number(counts!.payments) === expected, `payments ${counts!.payments} ≠ ${expected}`);
  check(Number(counts!.created) === expected, `payment.created events ${counts!.created} ≠ ${expected}`);
  check(Number(counts!.keys) === expected, `idempotency keys ${counts!.keys} ≠ ${expected}`);

  console.log(
    [
      `POST /payments/create over HTTP, ${CLIENTS} concurrent clients, API as dist/role.js api:`,
      `  ${N} creates in ${seconds.toFixed(2)} s: ${(N / seconds).toFixed(0)} creates/s, p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`,
      `  ${cpuLine}`,
      `  idempotency: ${Math.ceil(N / Math.max(1, Math.floor(N / 500)))} replays answered the same payment; ${CLIENTS} concurrent requests with one key made 1 payment; reuse with another body 409;`,
      `  rows: ${counts!.payments} payments, ${counts!.created} payment.created events, ${counts!.keys} idempotency keys for ${expected} keys sent`,
      `  API RSS after the run: ${(await rssMb(api.pid)).toFixed(0)} MB (SIGNING_THREADS=${process.env.SIGNING_THREADS ?? 1})`,
    ].join("\n"),
  );
} finally {
  await stack.close();
}

/**
 * Benchmark (not a test): `npm run bench:status -- [seconds] [connections]`.
 * GET /payments/{id}/status with a public key, on the API started as production starts it
 * (`dist/role.js api`, its own process), against the peer baseline (`bench/statusBaseline.ts`:
 * plain Hono + pg doing the same key lookup and payment read) on the same database, with the
 * same load generator (autocannon, or wrk with `BENCH_GENERATOR=wrk`), in alternating halves (API, baseline, baseline, API).
 * Prints both and the ratio. The API runs twice: with its rate limits on (every request counted
 * in Redis, budgets too large to refuse any) and off (RATE_LIMITS=off), measured in halves
 * the same way (on, off, off, on), so the limits' cost per status read is printed beside.
 */
import { spawn } from "bun";
import { resolve } from "node:path";
import { sql } from "drizzle-orm";
import { queryRows } from "../db/client.ts";
import { freePort } from "@stablepay/devchain/freePort";
import { insertPaymentRows, paymentRowFactory } from "../harness/paymentRows.ts";
import { generator, load } from "./lib/load.ts";
import { benchStack, cpuSeconds, postgresCpuSeconds } from "./lib/stack.ts";

const SECONDS = Number(process.argv[2] ?? 10);
const CONNECTIONS = Number(process.argv[3] ?? 32);
const PAYMENTS = 1_000;

const stack = await benchStack({ env: process.env.BENCH_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_LOG_LEVEL } : {} });
try {
  const merchant = await stack.seedMerchant();
  const row = paymentRowFactory(stack.config);
  const rows = await insertPaymentRows(stack.db, Array.from({ length: PAYMENTS }, () => row(merchant.id, { mode: "test" })));
  const ids = rows.map((r) => r.id!);
  const headers = { "x-public-key": merchant.publicKey };
  // Every connection walks the ids: the generator cycles through the request list.
  const requests = () => ids.slice(0, 200).map((id) => ({ method: "GET" as const, path: `/api/v1/payments/${id}/status`, headers }));

  // The stack's budgets are too large for any request to be refused: what is measured is the counting.
  const api = await stack.startRole("api");
  const unlimited = await stack.startRole("api", { RATE_LIMITS: "off" });
  const basePort = await freePort();
  const baseline = spawn(["bun", resolve(import.meta.dir, "statusBaseline.ts"), String(basePort)], { env: { ...process.env, DATABASE_URL: stack.databaseUrl }, stdout: "inherit", stderr: "inherit" });
  const baseUrl = `http://127.0.0.1:${basePort}`;
  for (let i = 0; !(await fetch(`${baseUrl}/api/v1/payments/${ids[0]}/status`, { headers }).then((r) => r.ok).catch(() => false)); i++) {
    if (i > 100) throw new Error("baseline did not start");
    await Bun.sleep(100);
  }
  // Same answer from both before measuring anything.
  const ours = (await (await fetch(`${api.url}/api/v1/payments/${ids[0]}/status`, { headers })).json()) as { payment: unknown };
  const theirs = (await (await fetch(`${baseUrl}/api/v1/payments/${ids[0]}/status`, { headers })).json()) as { payment: unknown };
  if (JSON.stringify(ours.payment) !== JSON.stringify(theirs.payment)) throw new Error(`answers differ:\n${JSON.stringify(ours.payment)}\n${JSON.stringify(theirs.payment)}`);

  // Warm all three (JIT, prepared statements, pools), then measure each alone on the machine.
  await load({ url: api.url, connections: CONNECTIONS, duration: 2, requests: requests() });
  await load({ url: unlimited.url, connections: CONNECTIONS, duration: 2, requests: requests() });
  await load({ url: baseUrl, connections: CONNECTIONS, duration: 2, requests: requests() });
  // The machine's speed drifts (a shared VM: every party's CPU per request moves together by
  // up to ±40% within minutes), so the two are measured in halves, in the order API, baseline,
  // baseline, API: a steady drift weighs on both alike. CPU per request of the server
  // process, of Postgres's backends and of the load generator (this process), and the
  // transactions Postgres committed per request, show where the cores go.
  const totals = new Map<number, { requests: number; seconds: number; server: number; postgres: number; transactions: number; generator: number; p50: number; p99: number; non2xx: number; errors: number; rps: number[] }>();
  // Transactions committed in this database (each statement outside a transaction is one).
  const committed = async () => Number((await queryRows<{ n: string }>(stack.db, sql`select xact_commit::text as n from pg_stat_database where datname = current_database()`))[0]!.n);
  const measure = async (url: string, pid: number) => {
    const [server, postgres, transactions, generator] = [await cpuSeconds(pid), await postgresCpuSeconds(stack.db), await committed(), process.cpuUsage()];
    const result = await load({ url, connections: CONNECTIONS, duration: SECONDS / 2, requests: requests() });
    const used = process.cpuUsage(generator);
    const t = totals.get(pid) ?? { requests: 0, seconds: 0, server: 0, postgres: 0, transactions: 0, generator: 0, p50: 0, p99: 0, non2xx: 0, errors: 0, rps: [] };
    totals.set(pid, {
      requests: t.requests + result.requests,
      seconds: t.seconds + result.requests / result.rps,
      server: t.server + (await cpuSeconds(pid)) - server,
      postgres: t.postgres + (await postgresCpuSeconds(stack.db)) - postgres,
      transactions: t.transactions + (await committed()) - transactions,
      generator: t.generator + (result.generatorCpuSeconds ?? (used.user + used.system) / 1e6),
      p50: Math.max(t.p50, result.p50),
      p99: Math.max(t.p99, result.p99),
      non2xx: t.non2xx + result.non2xx,
      errors: t.errors + result.errors,
      rps: [...t.rps, result.rps],
    });
  };
  await measure(api.url, api.pid);
  await measure(unlimited.url, unlimited.pid);
  await measure(baseUrl, baseline.pid!);
  await measure(baseUrl, baseline.pid!);
  await measure(unlimited.url, unlimited.pid);
  await measure(api.url, api.pid);
  const summary = (pid: number) => {
    const t = totals.get(pid)!;
    const perRequest = (seconds: number) => `${((seconds * 1e6) / t.requests).toFixed(0)} µs`;
    const rps = t.requests / t.seconds;
    const line = `${rps.toFixed(0)} req/s (halves ${t.rps.map((r) => r.toFixed(0)).join(", ")}), p50 ${+t.p50.toFixed(2)} ms, p99 ${+t.p99.toFixed(2)} ms (worst half; ${t.requests} requests, ${t.non2xx} non-2xx, ${t.errors} errors)`;
    return {
      rps,
      line,
      cpu: `CPU per request: server ${perRequest(t.server)}, Postgres ${perRequest(t.postgres)}, load generator ${perRequest(t.generator)}; ${(t.transactions / t.requests).toFixed(2)} Postgres transactions per request`,
    };
  };
  const [apiRun, offRun, baseRun] = [summary(api.pid), summary(unlimited.pid), summary(baseline.pid!)];
  baseline.kill();
  console.log(
    [
      `GET /payments/{id}/status, public key, ${CONNECTIONS} connections, ${SECONDS} s each in two halves (${generator}):`,
      `  API (dist/role.js api):     ${apiRun.line}`,
      `                              ${apiRun.cpu}`,
      `  API, RATE_LIMITS=off:       ${offRun.line}`,
      `                              ${offRun.cpu}`,
      `  baseline (Hono + pg):       ${baseRun.line}`,
      `                              ${baseRun.cpu}`,
      `  ratio: ${(apiRun.rps / baseRun.rps).toFixed(2)}× the baseline's throughput (limits off: ${(offRun.rps / baseRun.rps).toFixed(2)}×)`,
      `  rate limits: ${(100 * (apiRun.rps / offRun.rps - 1)).toFixed(1)}% throughput with them on against off`,
    ].join("\n"),
  );
} finally {
  await stack.close();
}

/**
 * Benchmark (not a test): `npm run bench:status -- [seconds] [connections]`.
 * GET /payments/{id}/status with a public key, on the API started as production starts it
 * (`scripts/role.ts api`, its own process), against the peer baseline (`bench/statusBaseline.ts`:
 * plain Hono + pg doing the same key lookup and payment read) on the same database, with the
 * same load generator (autocannon), one after the other. Prints both and the ratio.
 */
import { spawn } from "bun";
import { resolve } from "node:path";
import { freePort } from "../devchain/freePort.ts";
import { insertPaymentRows, paymentRowFactory } from "../test/helpers/paymentRows.ts";
import { fmt, load } from "./lib/load.ts";
import { benchStack, cpuSeconds } from "./lib/stack.ts";

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
  // Every connection walks the ids: autocannon cycles through the request list.
  const requests = () => ids.slice(0, 200).map((id) => ({ method: "GET", path: `/api/v1/payments/${id}/status`, headers }));

  const api = await stack.startRole("api");
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

  // Warm both (JIT, prepared statements, pools), then measure each alone on the machine.
  await load({ url: api.url, connections: CONNECTIONS, duration: 2, requests: requests() });
  await load({ url: baseUrl, connections: CONNECTIONS, duration: 2, requests: requests() });
  // CPU per request of the server process and of the load generator (this process), to see where the cores go.
  const measure = async (url: string, pid: number) => {
    const [server, generator] = [await cpuSeconds(pid), process.cpuUsage()];
    const result = await load({ url, connections: CONNECTIONS, duration: SECONDS, requests: requests() });
    const used = process.cpuUsage(generator);
    const perRequest = (seconds: number) => `${((seconds * 1e6) / result.requests).toFixed(0)} µs`;
    return { result, cpu: `CPU per request: server ${perRequest((await cpuSeconds(pid)) - server)}, load generator ${perRequest((used.user + used.system) / 1e6)}` };
  };
  const apiRun = await measure(api.url, api.pid);
  const baseRun = await measure(baseUrl, baseline.pid);
  const [apiResult, baseResult] = [apiRun.result, baseRun.result];
  baseline.kill();
  console.log(
    [
      `GET /payments/{id}/status, public key, ${CONNECTIONS} connections, ${SECONDS} s each (autocannon):`,
      `  API (scripts/role.ts api):  ${fmt(apiResult)}`,
      `                              ${apiRun.cpu}`,
      `  baseline (Hono + pg):       ${fmt(baseResult)}`,
      `                              ${baseRun.cpu}`,
      `  ratio: ${(apiResult.rps / baseResult.rps).toFixed(2)}× the baseline's throughput`,
    ].join("\n"),
  );
} finally {
  await stack.close();
}

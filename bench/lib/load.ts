import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";

export type LoadResult = {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** CPU seconds the generator used, when it ran as its own process (wrk); else the caller measures its own. */
  generatorCpuSeconds?: number;
};

export type LoadOptions = {
  url: string;
  connections: number;
  duration: number;
  headers?: Record<string, string>;
  method?: string;
  body?: string;
  /** GET requests cycled through by every connection. */
  requests?: Array<{ method: "GET"; path: string; headers?: Record<string, string> }>;
};

/**
 * The load generator: `autocannon` (in this process), or `wrk` (C, its own process, a
 * fraction of autocannon's CPU per request) with `BENCH_GENERATOR=wrk`. Every side of a
 * comparison runs under the same one.
 */
export const generator = (process.env.BENCH_GENERATOR ?? "autocannon") as "autocannon" | "wrk";
if (generator !== "autocannon" && generator !== "wrk") throw new Error(`BENCH_GENERATOR: autocannon or wrk, not ${generator}`);

export function load(options: LoadOptions): Promise<LoadResult> {
  return generator === "wrk" ? wrkLoad(options) : autocannonLoad(options);
}

async function autocannonLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.duration,
    headers: options.headers,
    method: (options.method ?? "GET") as "GET",
    body: options.body,
    requests: options.requests as never,
  });
  return {
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** wrk's request list as its Lua script: each connection's thread cycles through the paths. */
function wrkScript(options: LoadOptions): string {
  const lua = (s: string) => JSON.stringify(s); // a valid Lua string for printable text (paths, keys, JSON bodies)
  const lines = [`wrk.method = ${lua(options.method ?? "GET")}`];
  for (const [name, value] of Object.entries({ ...options.headers, ...options.requests?.[0]?.headers })) lines.push(`wrk.headers[${lua(name)}] = ${lua(value)}`);
  if (options.body !== undefined) lines.push(`wrk.body = ${lua(options.body)}`);
  if (options.requests?.length) {
    if (options.requests.some((r) => JSON.stringify(r.headers) !== JSON.stringify(options.requests![0]!.headers))) throw new Error("wrk: every request must carry the same headers");
    lines.push(`local paths = { ${options.requests.map((r) => lua(r.path)).join(", ")} }`, "local i = 0", "request = function()", "  i = i % #paths + 1", "  return wrk.format(nil, paths[i])", "end");
  }
  return lines.join("\n");
}

/** wrk's latency figures ("1.23ms", "850.00us", "1.02s") in milliseconds. */
function millis(text: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(text);
  if (!m) throw new Error(`wrk: unreadable latency ${text}`);
  return Number(m[1]) * (m[2] === "us" ? 0.001 : m[2] === "s" ? 1000 : 1);
}

async function wrkLoad(options: LoadOptions): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), "stablepay-wrk-"));
  try {
    const script = join(dir, "requests.lua");
    writeFileSync(script, wrkScript(options));
    // One thread: the generator's share of the two cores stays small.
    const child = Bun.spawn(["wrk", "-t1", `-c${options.connections}`, `-d${options.duration}s`, "--latency", "-s", script, options.url], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    if (code !== 0) throw new Error(`wrk exited ${code}: ${err}${out}`);
    const total = /(\d+) requests in ([\d.]+)(ms|s)/.exec(out);
    if (!total) throw new Error(`wrk: unreadable output\n${out}`);
    const seconds = Number(total[2]) / (total[3] === "ms" ? 1000 : 1);
    const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
    const usage = child.resourceUsage();
    return {
      requests: Number(total[1]),
      rps: Number(total[1]) / seconds,
      p50: millis(/^\s+50%\s+(\S+)/m.exec(out)![1]!),
      p99: millis(/^\s+99%\s+(\S+)/m.exec(out)![1]!),
      non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
      errors: errors ? errors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
      generatorCpuSeconds: usage ? Number(usage.cpuTime.user + usage.cpuTime.system) / 1e6 : undefined,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

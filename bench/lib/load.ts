import autocannon from "autocannon";

export type LoadResult = { requests: number; rps: number; p50: number; p99: number; non2xx: number; errors: number };

/** One autocannon run (the same generator for every side of a comparison). */
export async function load(options: { url: string; connections: number; duration: number; headers?: Record<string, string>; method?: string; body?: string; requests?: Array<Record<string, unknown>> }): Promise<LoadResult> {
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

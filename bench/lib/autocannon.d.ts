/** The part of autocannon's API the benchmarks use (it ships no types). */
declare module "autocannon" {
  type Options = {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: unknown[];
  };
  type Histogram = { average: number; p50: number; p99: number; total: number };
  type Result = { requests: Histogram; latency: Histogram; non2xx: number; errors: number; timeouts: number; "2xx": number };
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}

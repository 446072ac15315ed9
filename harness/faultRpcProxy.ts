/**
 * The faults a provider shows, as `faultRpcProxy` injects them:
 * - `refuse`: nothing listens on the port (a dead node: connections refused);
 * - `error5xx`: HTTP 502 to every request;
 * - `truncated`: the node's answer cut in half (invalid JSON);
 * - `stuckHead`: the head frozen where it stood when the fault began (`eth_blockNumber`,
 *   and `latest` reads answer the frozen block);
 * - `wrongChain`: `eth_chainId` answers another chain's id;
 * - `rateLimited`: HTTP 429 with `Retry-After: 1` to every request, as a provider over its quota;
 * - `slow`: every answer held back `slowMs` (past the service's RPC_TIMEOUT_MS and Ponder's 10 s),
 *   or until `heal`, whichever comes first.
 */
export type RpcFault = "refuse" | "error5xx" | "truncated" | "stuckHead" | "wrongChain" | "rateLimited" | "slow";

type Call = { id?: unknown; method?: string; params?: unknown[] };

/**
 * A loopback JSON-RPC proxy in front of `upstream` (a test anvil) that passes everything
 * through until `inject` sets a fault, and again after `heal`. Its port stays the same
 * across `refuse` (the server is stopped, then served again on that port).
 */
export async function faultRpcProxy(upstream: string, options: { slowMs?: number } = {}) {
  const slowMs = options.slowMs ?? 12_000;
  let fault: RpcFault | null = null;
  let frozenHead: string | null = null;
  // Resolved by `heal`: a slow node's held answers go out then.
  let healed = Promise.withResolvers<void>();
  const relay = (body: string) => fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body });

  const answer = async (request: Request): Promise<Response> => {
    const text = await request.text();
    if (fault === "error5xx") return new Response("Bad Gateway", { status: 502 });
    if (fault === "rateLimited") return new Response("Too Many Requests", { status: 429, headers: { "retry-after": "1" } });
    if (fault === "slow") await Promise.race([Bun.sleep(slowMs), healed.promise]);
    let calls: Call | Call[];
    try {
      calls = JSON.parse(text) as Call | Call[];
    } catch {
      return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
    }
    const list = Array.isArray(calls) ? calls : [calls];
    // A stuck node answers `latest` with its frozen block.
    const frozen = fault === "stuckHead" && frozenHead !== null;
    const asked = frozen
      ? list.map((c) => (c.method === "eth_getBlockByNumber" && c.params?.[0] === "latest" ? { ...c, params: [frozenHead, ...(c.params?.slice(1) ?? [])] } : c))
      : list;
    const response = await relay(JSON.stringify(Array.isArray(calls) ? asked : asked[0]));
    const body = await response.text();
    if (fault === "truncated") return new Response(body.slice(0, Math.floor(body.length / 2)), { status: 200, headers: { "content-type": "application/json" } });
    if (!frozen && fault !== "wrongChain") return new Response(body, { status: response.status, headers: { "content-type": "application/json" } });
    const byId = new Map(list.map((c) => [JSON.stringify(c.id), c.method]));
    const rewrite = (a: { id?: unknown; result?: unknown }) => {
      const method = byId.get(JSON.stringify(a.id));
      if (fault === "wrongChain" && method === "eth_chainId") return { ...a, result: "0x1" };
      if (frozen && method === "eth_blockNumber") return { ...a, result: frozenHead };
      return a;
    };
    const parsed = JSON.parse(body) as { id?: unknown; result?: unknown } | Array<{ id?: unknown; result?: unknown }>;
    return Response.json(Array.isArray(parsed) ? parsed.map(rewrite) : rewrite(parsed), { status: response.status });
  };

  const serve = (port: number) => Bun.serve({ hostname: "127.0.0.1", port, idleTimeout: 30, fetch: answer });
  let server: ReturnType<typeof serve> | null = serve(0);
  const port = server.port;

  return {
    url: `http://127.0.0.1:${port}`,
    async inject(next: RpcFault) {
      if (next === "stuckHead") {
        const head = (await (await relay(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] }))).json()) as { result: string };
        frozenHead = head.result;
      }
      fault = next;
      if (next === "refuse" && server) {
        server.stop(true);
        server = null;
      }
    },
    heal() {
      fault = null;
      frozenHead = null;
      healed.resolve();
      healed = Promise.withResolvers<void>();
      server ??= serve(port!);
    },
    stop: async () => void (await server?.stop(true)),
  };
}

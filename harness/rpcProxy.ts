import type { Hex } from "viem";

/**
 * What an armed proxy does with `eth_sendRawTransaction`:
 * - `drop`: never forwards it and never answers — the sender hangs as if it died
 *   before the bytes left the machine;
 * - `forward`: forwards it to the node, then never answers — the transaction reached
 *   the chain but the sender dies before it sees the result.
 */
export type InterceptMode = "drop" | "forward";

export type Interception = {
  mode: InterceptMode;
  /** The signed transaction the client tried to send. */
  rawTx: Hex;
  /** In `forward` mode, the node's own answer (which the client never gets). */
  upstream?: unknown;
};

type RpcCall = { jsonrpc?: string; id?: unknown; method?: string; params?: unknown[] };

export type RpcProxy = {
  /** The proxy's URL, to hand to the client under test instead of the node's. */
  url: string;
  /**
   * Intercepts every `eth_sendRawTransaction` from now on until `disarm`. The returned
   * promise resolves at the first one (in `forward` mode, once the node has answered);
   * `onIntercept` runs synchronously right then, so a test can kill the sender at that
   * exact point.
   */
  arm(mode: InterceptMode, onIntercept?: (hit: Interception) => void): Promise<Interception>;
  /** Back to plain pass-through (requests already held stay unanswered). */
  disarm(): void;
  /**
   * Answers a request holding any of these methods with HTTP 429, as a rate-limiting
   * provider does, until called again (an empty list heals it).
   */
  fail(methods: readonly string[]): void;
  /** JSON-RPC methods forwarded so far, in order (batches flattened). */
  readonly forwarded: readonly string[];
  /** Stops listening and releases every held request. */
  stop(): Promise<void>;
};

/**
 * A loopback JSON-RPC proxy in front of `upstream` (an HTTP JSON-RPC endpoint, e.g. a
 * test anvil). Single calls and batches are forwarded as they are; only an armed
 * proxy treats `eth_sendRawTransaction` specially (see `InterceptMode`).
 */
export function startRpcProxy(upstream: string): RpcProxy {
  let armed: { mode: InterceptMode; resolve: (hit: Interception) => void; onIntercept?: (hit: Interception) => void } | null = null;
  let failing = new Set<string>();
  const forwarded: string[] = [];
  // Held (never answered) requests end when their client goes away or the proxy stops.
  let releaseHeld!: () => void;
  const stopped = new Promise<void>((resolve) => (releaseHeld = resolve));

  const relay = async (body: string) => {
    const response = await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body });
    return { status: response.status, text: await response.text() };
  };

  const hold = (request: Request) =>
    new Promise<Response>((resolve) => {
      const answer = () => resolve(new Response("proxy released a held request", { status: 503 }));
      request.signal.addEventListener("abort", answer, { once: true });
      void stopped.then(answer);
    });

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    // A held request must stay open as long as its client does.
    idleTimeout: 0,
    async fetch(request) {
      if (request.method !== "POST") return new Response("JSON-RPC over POST only", { status: 405 });
      const text = await request.text();
      let parsed: RpcCall | RpcCall[];
      try {
        parsed = JSON.parse(text) as RpcCall | RpcCall[];
      } catch {
        return Response.json({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "parse error" } });
      }
      const calls = Array.isArray(parsed) ? parsed : [parsed];
      if (calls.some((c) => failing.has(String(c.method)))) return new Response("Too Many Requests", { status: 429 });
      const trap = armed;
      const sends = calls.filter((c) => c.method === "eth_sendRawTransaction");
      if (!trap || sends.length === 0) {
        forwarded.push(...calls.map((c) => String(c.method)));
        const { status, text: answer } = await relay(text);
        return new Response(answer, { status, headers: { "content-type": "application/json" } });
      }

      const rawTx = sends[0]!.params?.[0] as Hex;
      let upstreamAnswer: unknown;
      if (trap.mode === "forward") {
        forwarded.push(...calls.map((c) => String(c.method)));
        upstreamAnswer = JSON.parse((await relay(text)).text);
      } else {
        // Everything else in a batch still reaches the node; the sends never do.
        const rest = calls.filter((c) => c.method !== "eth_sendRawTransaction");
        if (rest.length > 0) {
          forwarded.push(...rest.map((c) => String(c.method)));
          await relay(JSON.stringify(rest));
        }
      }
      const hit: Interception = { mode: trap.mode, rawTx, ...(upstreamAnswer === undefined ? {} : { upstream: upstreamAnswer }) };
      trap.onIntercept?.(hit);
      trap.resolve(hit);
      return hold(request);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    arm(mode, onIntercept) {
      return new Promise<Interception>((resolve) => {
        armed = { mode, resolve, onIntercept };
      });
    },
    disarm() {
      armed = null;
    },
    fail(methods) {
      failing = new Set(methods);
    },
    get forwarded() {
      return forwarded;
    },
    async stop() {
      releaseHeld();
      await server.stop(true);
    },
  };
}

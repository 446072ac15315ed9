/** One JSON-RPC call and its answer, as the rewriting proxy hands them to `rewrite`. */
export type RpcCall = { id: unknown; method: string; params?: unknown[] };
export type RpcAnswer = { id: unknown; result?: unknown };

/**
 * A loopback JSON-RPC proxy in front of `upstream` that passes each answer (single or
 * batched) through `rewrite`: a node that withholds, lags or misreports, answer by answer;
 * an async `rewrite` holds the answer back until it resolves (a slow node, at a chosen moment).
 * `onRequest` sees each HTTP request's calls (a batch's size); `reorder` rearranges a batch's
 * answers (JSON-RPC lets a server answer a batch in any order).
 */
export function rewritingRpcProxy(
  upstream: string,
  rewrite: (call: RpcCall, answer: RpcAnswer) => RpcAnswer | Promise<RpcAnswer>,
  options: { onRequest?: (calls: RpcCall[]) => void; reorder?: (answers: RpcAnswer[]) => RpcAnswer[] } = {},
) {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const body = await request.text();
      const answer = await fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body });
      const parsedCalls = JSON.parse(body) as RpcCall | RpcCall[];
      const list = Array.isArray(parsedCalls) ? parsedCalls : [parsedCalls];
      options.onRequest?.(list);
      const calls = new Map(list.map((c) => [c.id, c]));
      const parsed = (await answer.json()) as RpcAnswer | RpcAnswer[];
      const each = async (r: RpcAnswer) => (calls.has(r.id) ? rewrite(calls.get(r.id)!, r) : r);
      const answers = Array.isArray(parsed) ? await Promise.all(parsed.map(each)) : await each(parsed);
      return Response.json(Array.isArray(answers) && options.reorder ? options.reorder(answers) : answers, { status: answer.status });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

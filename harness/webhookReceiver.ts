/** One request a test receiver got. */
export type ReceivedWebhook = { path: string; headers: Record<string, string>; body: string; status: number; at: number };

/**
 * A loopback HTTP server standing in for a merchant's webhook endpoint. Each path
 * answers by its own rule (`respond`), which a test can change at any time; every
 * request is recorded with the status it was answered.
 */
export function startWebhookReceiver(respond: (path: string, nth: number) => number | Promise<number> = () => 200) {
  const received: ReceivedWebhook[] = [];
  const seen = new Map<string, number>();
  let rule = respond;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const body = await request.text();
      const nth = (seen.get(path) ?? 0) + 1;
      seen.set(path, nth);
      const status = await rule(path, nth);
      const headers: Record<string, string> = {};
      request.headers.forEach((value, name) => (headers[name] = value));
      received.push({ path, headers, body, status, at: Date.now() });
      return new Response(status >= 200 && status < 300 ? "ok" : `nope ${status}`, { status });
    },
  });
  const url = (path: string) => `http://127.0.0.1:${server.port}${path}`;
  return {
    url,
    received,
    /** Requests to `path`, in arrival order. */
    at: (path: string) => received.filter((r) => r.path === path),
    setRule: (next: typeof respond) => void (rule = next),
    stop: () => server.stop(true),
  };
}

export type WebhookReceiver = ReturnType<typeof startWebhookReceiver>;

/** Polls `check` until it returns a truthy value, or fails naming `what`. */
export async function waitUntil<T>(what: string, check: () => Promise<T> | T, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(25);
  }
}

import { afterAll, expect, test } from "bun:test";
import { createServer } from "node:net";
import { EXCERPT_BYTES, postWebhook, WebhookRequestError } from "../../webhooks/postWebhook.ts";
import { freePort } from "@stablepay/devchain/freePort";

/** Receivers on loopback addresses; each records what reached it. */
type Seen = { host: string | null; body: string; headers: Headers };
const servers: Array<{ stop: (force?: boolean) => unknown }> = [];
function receiver(hostname: string, port: number, answer: (request: Request) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  servers.push(
    Bun.serve({
      hostname,
      port,
      fetch: async (request) => {
        seen.push({ host: request.headers.get("host"), body: await request.text(), headers: request.headers });
        return answer(request);
      },
    }),
  );
  return seen;
}
afterAll(() => {
  for (const s of servers) s.stop(true);
});

const send = (url: string, extra: Partial<Parameters<typeof postWebhook>[1]> = {}) =>
  postWebhook(url, { headers: { "content-type": "application/json", "webhook-id": "evt_1" }, body: '{"type":"payment.completed"}', timeoutMs: 2_000, ...extra });

test("posts the body and headers and answers the status and the start of the response", async () => {
  const port = await freePort();
  const seen = receiver("127.0.0.1", port, () => new Response("thanks", { status: 202 }));
  expect(await send(`http://127.0.0.1:${port}/hooks`)).toEqual({ statusCode: 202, excerpt: "thanks" });
  expect(seen[0]!.body).toBe('{"type":"payment.completed"}');
  expect(seen[0]!.headers.get("webhook-id")).toBe("evt_1");
  expect(seen[0]!.headers.get("content-length")).toBe("28");
});

test("keeps at most EXCERPT_BYTES of a long answer, and none of an empty one", async () => {
  const port = await freePort();
  receiver("127.0.0.1", port, (r) => (new URL(r.url).pathname === "/long" ? new Response("x".repeat(1_000_000)) : new Response(null, { status: 204 })));
  const long = await send(`http://127.0.0.1:${port}/long`);
  expect(long.statusCode).toBe(200);
  expect(long.excerpt).toHaveLength(EXCERPT_BYTES);
  expect(await send(`http://127.0.0.1:${port}/empty`)).toEqual({ statusCode: 204, excerpt: null });
});

test("pinned addresses decide where the socket goes; the Host header stays the URL's", async () => {
  // localhost resolves to 127.0.0.1, where the "rebound" server listens; the check approved 127.0.0.2.
  const port = await freePort();
  const rebound = receiver("127.0.0.1", port, () => new Response("wrong place"));
  const approved = receiver("127.0.0.2", port, () => new Response("approved"));
  expect(await send(`http://localhost:${port}/hooks`, { addresses: ["127.0.0.2"] })).toEqual({ statusCode: 200, excerpt: "approved" });
  expect(rebound).toHaveLength(0);
  expect(approved[0]!.host).toBe(`localhost:${port}`);
  // A name DNS has never heard of still goes to the pinned address: no second lookup happens.
  expect((await send(`http://hooks.example.invalid:${port}/`, { addresses: ["127.0.0.2"] })).excerpt).toBe("approved");
});

test("a redirect is answered as it is, never followed", async () => {
  const port = await freePort();
  const seen = receiver("127.0.0.1", port, (r) => (new URL(r.url).pathname === "/a" ? Response.redirect(`http://127.0.0.1:${port}/b`, 302) : new Response("b")));
  expect((await send(`http://127.0.0.1:${port}/a`)).statusCode).toBe(302);
  expect(seen.map((s) => s.body)).toHaveLength(1);
});

test("no answer within the timeout is a timed-out error", async () => {
  const port = await freePort();
  receiver("127.0.0.1", port, () => new Promise<Response>(() => {}));
  const started = performance.now();
  const error = await send(`http://127.0.0.1:${port}/`, { timeoutMs: 300 }).catch((e) => e);
  expect(error).toBeInstanceOf(WebhookRequestError);
  expect(error).toMatchObject({ timedOut: true, message: "no response within 300 ms" });
  expect(performance.now() - started).toBeLessThan(5_000);
});

// BUG: a 200 whose body never ended counted as a timeout: retried (a duplicate), and a 410
// sent that way never disabled its endpoint.
test("a status answered with a body that never ends: the status counts at the timeout, with what came of the body", async () => {
  const port = await freePort();
  receiver("127.0.0.1", port, () => {
    const body = new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode("accepted, still talking")) });
    return new Response(body, { status: 200 });
  });
  expect(await send(`http://127.0.0.1:${port}/`, { timeoutMs: 300 })).toEqual({ statusCode: 200, excerpt: "accepted, still talking" });
});

test("a refused connection is a request error, not a timeout", async () => {
  const port = await freePort();
  const error = await send(`http://127.0.0.1:${port}/`).catch((e) => e);
  expect(error).toBeInstanceOf(WebhookRequestError);
  expect(error.timedOut).toBe(false);
  expect(error.message).toStartWith("request failed:");
});

// BUG: a receiver that sent its status and then reset the connection (a crash after the
// headers, a proxy cut mid-body) was a failed attempt: a 200 sent again, a 410 never honoured.
test("a status answered, then the connection reset: the status counts, with what came of the body", async () => {
  const port = await freePort();
  const server = createServer((socket) => {
    socket.once("data", () => {
      socket.write("HTTP/1.1 410 Gone\r\nContent-Length: 50\r\n\r\ngone");
      setTimeout(() => socket.resetAndDestroy(), 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  try {
    expect(await send(`http://127.0.0.1:${port}/`)).toEqual({ statusCode: 410, excerpt: "gone" });
  } finally {
    server.close();
  }
});

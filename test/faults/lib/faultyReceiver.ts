import { createServer, type Socket } from "node:net";

/** What a receiver does with one request: answer a status, hang past any timeout, or drop the connection. */
export type Misbehaviour = { status: number } | { hang: true } | { close: true };

/** One webhook request as it arrived, and what was done with it. */
export type FaultyRequest = { path: string; eventId: string; nth: number; at: number; did: string };

/**
 * A merchant's webhook server that misbehaves on purpose, on a raw TCP socket so it can
 * also close the connection without answering. `behave(path, nth)` decides per request,
 * `nth` counting the attempts of the same event (the `webhook-id` header) at that path.
 */
export async function startFaultyReceiver(behave: (path: string, nth: number) => Misbehaviour) {
  const requests: FaultyRequest[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buffer = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      const end = buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = buffer.subarray(0, end).toString();
      const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (buffer.length < end + 4 + length) return;
      const path = head.split(" ")[1] ?? "/";
      const eventId = /webhook-id:\s*(\S+)/i.exec(head)?.[1] ?? "";
      buffer = Buffer.alloc(0);
      const nth = requests.filter((r) => r.path === path && r.eventId === eventId).length + 1;
      const what = behave(path, nth);
      const did = "status" in what ? String(what.status) : "hang" in what ? "hang" : "close";
      requests.push({ path, eventId, nth, at: Date.now(), did });
      if ("close" in what) socket.destroy();
      else if ("status" in what) socket.end(`HTTP/1.1 ${what.status} X\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok`);
      // hang: nothing is ever written; the sender's timeout ends it.
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    requests,
    stop: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

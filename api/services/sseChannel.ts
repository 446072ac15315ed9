/** How long a browser waits before reconnecting a dropped stream (the SSE `retry` field). */
const RECONNECT_MS = 3_000;

const encoder = new TextEncoder();

/**
 * The plumbing of one Server-Sent Events stream, shared by the checkout's and the dashboard's:
 * a body that begins with `retry`; `write`, which drops what comes after the end; `end`, run
 * once however the stream ends (then `onEnd`); `close`, which ends it and closes the body.
 * `respond` starts the keep-alive comments and the stream's lifetime once its first read is
 * done, and answers the `Response`.
 */
export function sseChannel(onEnd: () => void) {
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  let open = true;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let lifetime: ReturnType<typeof setTimeout> | undefined;

  const end = () => {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    clearTimeout(lifetime);
    onEnd();
  };
  const close = () => {
    const c = controller;
    end();
    try {
      c?.close();
    } catch {}
  };
  const write = (text: string) => {
    if (!open || !controller) return;
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      end();
    }
  };
  // `start` runs in the constructor: the controller exists before anything can be written.
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c), cancel: () => end() });
  write(`retry: ${RECONNECT_MS}\n\n`);

  return {
    write,
    end,
    close,
    isOpen: () => open,
    respond(
      timing: { heartbeatMs: number; maxStreamMs: number },
      request: Request,
      server: { timeout(request: Request, seconds: number): void } | null,
    ): Response {
      heartbeat = setInterval(() => write(": keep-alive\n\n"), timing.heartbeatMs);
      // No connection holds its slot for ever: the page reconnects and carries on.
      lifetime = setTimeout(close, timing.maxStreamMs);
      request.signal.addEventListener("abort", () => end(), { once: true });
      if (request.signal.aborted) end();
      // Bun closes a connection idle for 10 s; the heartbeat is slower than that, so this stream is exempt.
      server?.timeout(request, 0);
      return new Response(body, {
        headers: {
          "Content-Type": "text/event-stream; charset=utf-8",
          "Cache-Control": "no-cache, no-transform",
          // nginx buffers responses unless told not to.
          "X-Accel-Buffering": "no",
        },
      });
    },
  };
}

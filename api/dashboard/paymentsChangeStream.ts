import type { PaymentStreamHub, PaymentStreamListener } from "../services/paymentStreamHub.ts";

/** How long a browser waits before reconnecting a dropped stream (the SSE `retry` field). */
const RECONNECT_MS = 3_000;

const encoder = new TextEncoder();

/**
 * One Server-Sent Events stream for the payments list: it follows each of `paymentIds` (the
 * open payments the page shows, already checked to be the account's) on the checkout's change
 * hub (`PaymentStreamHub`, fed by the writers' NOTIFY), and sends `event: payment` with the
 * id whenever one's checkout view differs from what it was when the stream opened or was last
 * announced. The page then fetches its table again. One connection for the whole list, not one
 * per row (browsers allow six per origin). A payment whose hub slots are full is left to the
 * page's slow periodic refresh. Ends after `hub.maxStreamMs`; the browser reconnects.
 */
export async function openPaymentsChangeStream(
  hub: PaymentStreamHub,
  paymentIds: readonly string[],
  request: Request,
  server: { timeout(request: Request, seconds: number): void } | null,
  /** Called once when the stream ends, however it ends. */
  onEnd: () => void = () => {},
): Promise<Response> {
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  let open = true;
  const unwatches: Array<() => void> = [];
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let lifetime: ReturnType<typeof setTimeout> | undefined;

  function end() {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    clearTimeout(lifetime);
    for (const unwatch of unwatches) unwatch();
    onEnd();
  }
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
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c), cancel: () => end() });
  write(`retry: ${RECONNECT_MS}\n\n`);

  // Each payment's view as last seen, and the read number it came from (older reads are ignored).
  const seen = new Map<string, { json: string | null; seq: number }>();
  const listenerFor = (id: string): PaymentStreamListener => ({
    deliver(json, seq) {
      const last = seen.get(id)!;
      if (seq <= last.seq) return;
      const changed = last.json !== null && json !== last.json;
      seen.set(id, { json, seq });
      if (changed) write(`event: payment\ndata: ${JSON.stringify({ id })}\n\n`);
    },
    close,
  });
  for (const id of paymentIds) {
    seen.set(id, { json: null, seq: 0 });
    const unwatch = hub.watch(id, listenerFor(id));
    if (unwatch) unwatches.push(unwatch);
    else seen.delete(id);
  }
  // Followed first, then read: a change committed in between arrives as a later read.
  try {
    for (const id of seen.keys()) {
      const initial = await hub.read(id);
      const last = seen.get(id)!;
      if (initial && initial.seq > last.seq && last.json === null) seen.set(id, { json: initial.json, seq: initial.seq });
    }
  } catch (error) {
    end();
    throw error;
  }
  heartbeat = setInterval(() => write(": keep-alive\n\n"), hub.heartbeatMs);
  lifetime = setTimeout(close, hub.maxStreamMs);
  request.signal.addEventListener("abort", () => end(), { once: true });
  if (request.signal.aborted) end();
  // Bun closes a connection idle for 10 s; the heartbeat is slower than that, so this stream is exempt.
  server?.timeout(request, 0);
  return new Response(body, {
    headers: { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache, no-transform", "X-Accel-Buffering": "no" },
  });
}

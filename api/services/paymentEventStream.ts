import { NotFoundError, ServiceUnavailableError } from "../../domain/errors.ts";
import type { PaymentStreamHub, PaymentStreamListener } from "./paymentStreamHub.ts";

/** How long a browser waits before reconnecting a dropped stream (the SSE `retry` field). */
const RECONNECT_MS = 3_000;

const encoder = new TextEncoder();

/**
 * A Server-Sent Events stream of one payment's checkout view: the view at once, then
 * again each time it changes (event `payment`, data the JSON of
 * `GET /payments/public/{id}`), and a comment line every `hub.heartbeatMs` so that
 * proxies keep an idle stream open. The stream follows the payment before it reads it,
 * so a change committed in between is not missed; deliveries older than what was sent
 * are dropped, and an unchanged view is not sent again.
 */
export async function openPaymentEventStream(
  hub: PaymentStreamHub,
  id: string,
  request: Request,
  server: { timeout(request: Request, seconds: number): void } | null,
): Promise<Response> {
  // The hub keys payments by the id as Postgres writes it: lowercase.
  const paymentId = id.toLowerCase();
  let controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  let lastJson: string | null = null;
  let appliedSeq = 0;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let lifetime: ReturnType<typeof setTimeout> | undefined;
  let open = true;
  let unwatch: (() => void) | null = null;

  function end() {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    clearTimeout(lifetime);
    unwatch?.();
  }
  const write = (text: string) => {
    if (!open || !controller) return;
    try {
      controller.enqueue(encoder.encode(text));
    } catch {
      end();
    }
  };
  const listener: PaymentStreamListener = {
    deliver(json, seq) {
      if (seq <= appliedSeq) return;
      appliedSeq = seq;
      if (json === lastJson) return;
      lastJson = json;
      write(`event: payment\ndata: ${json}\n\n`);
    },
    close: () => {
      const c = controller;
      end();
      try {
        c?.close();
      } catch {}
    },
  };

  // `start` runs in the constructor: the controller exists before anything can be delivered.
  const body = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: () => end(),
  });
  write(`retry: ${RECONNECT_MS}\n\n`);

  unwatch = hub.watch(paymentId, listener);
  if (!unwatch) throw new ServiceUnavailableError("Too many live streams of this payment or on this server; poll GET /payments/public/{paymentId} instead.");
  let initial: Awaited<ReturnType<PaymentStreamHub["read"]>>;
  try {
    initial = await hub.read(paymentId);
  } catch (error) {
    end();
    throw error;
  }
  if (!initial) {
    end();
    throw new NotFoundError(`No payment with id ${paymentId}.`);
  }
  // Gone during the read: an abort already signalled never reaches a listener added now,
  // and a hub that stopped meanwhile has closed this stream already.
  if (!open || request.signal.aborted) {
    end();
    throw new ServiceUnavailableError("The stream ended before it began; poll GET /payments/public/{paymentId} instead.");
  }
  listener.deliver(initial.json, initial.seq);
  heartbeat = setInterval(() => write(": keep-alive\n\n"), hub.heartbeatMs);
  // No connection holds its slot for ever: the page reconnects and carries on.
  lifetime = setTimeout(() => listener.close(), hub.maxStreamMs);
  request.signal.addEventListener("abort", () => end(), { once: true });
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
}

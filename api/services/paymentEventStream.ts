import { NotFoundError, ServiceUnavailableError } from "../../domain/errors.ts";
import type { PaymentStreamHub, PaymentStreamListener } from "./paymentStreamHub.ts";
import { sseChannel } from "./sseChannel.ts";

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
  let lastJson: string | null = null;
  let appliedSeq = 0;
  let unwatch: (() => void) | null = null;
  const channel = sseChannel(() => unwatch?.());
  const { write, end } = channel;
  const listener: PaymentStreamListener = {
    deliver(json, seq) {
      if (seq <= appliedSeq) return;
      appliedSeq = seq;
      if (json === lastJson) return;
      lastJson = json;
      write(`event: payment\ndata: ${json}\n\n`);
    },
    close: channel.close,
  };

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
  if (!channel.isOpen() || request.signal.aborted) {
    end();
    throw new ServiceUnavailableError("The stream ended before it began; poll GET /payments/public/{paymentId} instead.");
  }
  listener.deliver(initial.json, initial.seq);
  return channel.respond(hub, request, server);
}

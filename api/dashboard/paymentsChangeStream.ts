import type { PaymentStreamHub, PaymentStreamListener } from "../services/paymentStreamHub.ts";
import { sseChannel } from "../services/sseChannel.ts";

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
  const unwatches: Array<() => void> = [];
  const channel = sseChannel(() => {
    for (const unwatch of unwatches) unwatch();
    onEnd();
  });
  const { write, end, close } = channel;

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
  return channel.respond(hub, request, server);
}

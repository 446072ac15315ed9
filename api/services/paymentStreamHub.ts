import type { Logger } from "../../config/logger.ts";
import { startNotifyLoop } from "../../db/notifyLoop.ts";
import { changedIds, PAYMENT_CHANGES_CHANNEL } from "../../db/paymentChanges.ts";

/** One open stream of a payment's checkout view. */
export type PaymentStreamListener = {
  /**
   * The payment's view (JSON) as read by read number `seq`. Reads are numbered in the
   * order they started, so a stream ignores one older than what it already has.
   */
  deliver(json: string, seq: number): void;
  /** The process is shutting down: end the stream. */
  close(): void;
};

export type PaymentStreamHub = {
  /**
   * Follows a payment for a stream; null when this process already holds `maxStreams`
   * streams, or `MAX_STREAMS_PER_PAYMENT` of this payment.
   */
  watch(paymentId: string, listener: PaymentStreamListener): (() => void) | null;
  /** The payment's view now, numbered like deliveries; null when no payment has that id. */
  read(paymentId: string): Promise<{ json: string; seq: number } | null>;
  /** How often streams send a comment line so that proxies keep them open. */
  readonly heartbeatMs: number;
  /**
   * How long one stream lasts before the server ends it; the browser reconnects by itself
   * (EventSource, after the stream's `retry`), to whichever process the balancer picks then.
   */
  readonly maxStreamMs: number;
  /** Streams open in this process. */
  streams(): number;
  /** Ends every stream and stops listening. */
  stop(): Promise<void>;
};

/**
 * Streams of one payment at most, per process: a checkout page opens one, a customer's tabs
 * and devices a few. Without it, anyone holding one payment id (every checkout link has one)
 * could take every stream slot of the server, and every other checkout page would poll.
 */
export const MAX_STREAMS_PER_PAYMENT = 20;

/** Views re-read in one query at most (a periodic catch-up over many followed payments is chunked). */
const READ_CHUNK = 500;

/**
 * The API process's one listener for payment changes, fanned out to its checkout
 * streams. Writers NOTIFY `stablepay_payment_changes` with the changed ids when they
 * commit; the hub re-reads the views of the ids some stream follows (one batch for all
 * of them) and hands each view to those streams, which send it only if it differs from
 * what they sent last. Every `refreshIntervalMs` it re-reads everything followed, which
 * covers a notification lost while the listening connection was down. The listening
 * connection is opened with the first stream, so a process nobody follows holds none.
 */
export function createPaymentStreamHub(options: {
  databaseUrl: string | undefined;
  logger: Logger;
  /** The checkout views of these ids (missing ids: no such payment). */
  load: (ids: readonly string[]) => Promise<Map<string, unknown>>;
  maxStreams: number;
  heartbeatMs?: number;
  maxStreamMs?: number;
  refreshIntervalMs?: number;
}): PaymentStreamHub {
  const { logger, load } = options;
  const followers = new Map<string, Set<PaymentStreamListener>>();
  let count = 0;
  let seq = 0;
  let stopped = false;
  let loop: ReturnType<typeof startNotifyLoop> | null = null;

  async function refresh(ids: readonly string[]): Promise<void> {
    const followed = ids.filter((id) => followers.has(id));
    for (let i = 0; i < followed.length; i += READ_CHUNK) {
      const chunk = followed.slice(i, i + READ_CHUNK);
      const readSeq = ++seq;
      const views = await load(chunk);
      for (const id of chunk) {
        const view = views.get(id);
        if (view === undefined) continue;
        const json = JSON.stringify(view);
        for (const listener of followers.get(id) ?? []) listener.deliver(json, readSeq);
      }
    }
  }

  // Notified ids wait here for one batched re-read; ids that come in meanwhile join the next.
  const pending = new Set<string>();
  let flushing = false;
  function onNotification(payload: string) {
    for (const id of changedIds(payload)) if (followers.has(id)) pending.add(id);
    if (flushing || pending.size === 0) return;
    flushing = true;
    queueMicrotask(async () => {
      while (pending.size > 0 && !stopped) {
        const ids = [...pending];
        pending.clear();
        await refresh(ids).catch((error) => logger.warn({ err: error }, "checkout streams could not re-read payments"));
      }
      flushing = false;
    });
  }

  function listen() {
    loop ??= startNotifyLoop({
      name: "checkout streams",
      channel: PAYMENT_CHANGES_CHANNEL,
      databaseUrl: options.databaseUrl,
      intervalMs: options.refreshIntervalMs ?? 15_000,
      logger,
      run: () => refresh([...followers.keys()]),
      onNotification,
    });
  }

  return {
    heartbeatMs: options.heartbeatMs ?? 15_000,
    maxStreamMs: options.maxStreamMs ?? 30 * 60_000,
    watch(paymentId, listener) {
      if (stopped || count >= options.maxStreams) return null;
      if ((followers.get(paymentId)?.size ?? 0) >= MAX_STREAMS_PER_PAYMENT) return null;
      listen();
      let set = followers.get(paymentId);
      if (!set) followers.set(paymentId, (set = new Set()));
      set.add(listener);
      count++;
      let watching = true;
      return () => {
        if (!watching) return;
        watching = false;
        count--;
        set.delete(listener);
        if (set.size === 0 && followers.get(paymentId) === set) followers.delete(paymentId);
      };
    },
    async read(paymentId) {
      const readSeq = ++seq;
      const view = (await load([paymentId])).get(paymentId);
      return view === undefined ? null : { json: JSON.stringify(view), seq: readSeq };
    },
    streams: () => count,
    async stop() {
      stopped = true;
      for (const set of [...followers.values()]) for (const listener of [...set]) listener.close();
      followers.clear();
      await loop?.stop();
    },
  };
}

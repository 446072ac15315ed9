import type { Logger } from "../../config/logger.ts";
import { startNotifyLoop } from "../../db/notifyLoop.ts";
import { announcedOutcome, X402_SETTLEMENTS_CHANNEL, type X402Outcome } from "../../db/x402Settlements.ts";

/** Settles waiting for the worker, woken when it records something of their settlement. */
export type X402SettlementWaits = {
  /**
   * A wait that resolves with the settlement's outcome when it is announced, or with null after
   * `ms` at most. Begun before reading the row, so an announcement in between is not missed.
   */
  next(settlementId: string, ms: number): { woken: Promise<X402Outcome | null>; cancel(): void };
  stop(): Promise<void>;
};

/**
 * The API process's one listener on `stablepay_x402_settlements`: a settle waits for its
 * settlement's announced outcome instead of polling the database (a poll's interval would be
 * most of x402's settle overhead). The listening connection opens with the first wait. A wait that
 * hears nothing ends after its `ms`, so a lost notification (a dropped listener) costs that
 * long, never the answer.
 */
export function createX402SettlementWaits(options: { databaseUrl: string | undefined; logger: Logger }): X402SettlementWaits {
  const waiting = new Map<string, Set<(outcome: X402Outcome | null) => void>>();
  let loop: ReturnType<typeof startNotifyLoop> | null = null;
  const wake = (payload: string) => {
    const outcome = announcedOutcome(payload);
    if (outcome) for (const resolve of waiting.get(outcome.id) ?? []) resolve(outcome);
  };
  return {
    next(settlementId, ms) {
      loop ??= startNotifyLoop({
        name: "x402 settle waits",
        channel: X402_SETTLEMENTS_CHANNEL,
        databaseUrl: options.databaseUrl,
        intervalMs: 5_000,
        logger: options.logger,
        run: async () => {},
        onNotification: wake,
      });
      let set = waiting.get(settlementId);
      if (!set) waiting.set(settlementId, (set = new Set()));
      const entries = set;
      let done: (outcome: X402Outcome | null) => void = () => {};
      const woken = new Promise<X402Outcome | null>((resolve) => {
        done = (outcome) => {
          clearTimeout(timer);
          entries.delete(done);
          if (entries.size === 0 && waiting.get(settlementId) === entries) waiting.delete(settlementId);
          resolve(outcome);
        };
      });
      const timer = setTimeout(() => done(null), ms);
      entries.add(done);
      return { woken, cancel: () => done(null) };
    },
    async stop() {
      for (const set of [...waiting.values()]) for (const done of [...set]) done(null);
      await loop?.stop();
    },
  };
}

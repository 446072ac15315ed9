import type { Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";
import { storedResponse, type IdempotencyScope, type StoredResponse } from "../../db/idempotency.ts";
import type { Prompts } from "../../domain/prompts.ts";
import type { PaymentCreation } from "../../db/paymentCreations.ts";
import { writePaymentCreation, writePaymentCreations } from "../../reconcile/index.ts";
import { findMerchantSettings, type MerchantSettings } from "../../db/merchantSettings.ts";
import { countOpenPayments } from "../../db/openPayments.ts";
import type { Mode } from "../../domain/mode.ts";
import { createBatchedReads } from "./batchedReads.ts";
import { createBatcher } from "../../domain/batcher.ts";

export type PaymentCreations = {
  /** The stored answer of a finished request with this key; a key reused with another body throws. */
  storedResponse(idempotency: IdempotencyScope): Promise<(StoredResponse & { replayed: true }) | undefined>;
  /** The merchant's settlement currency and wallets, read after this call (reads are batched too). */
  settings(merchantId: string): Promise<MerchantSettings | null>;
  /** Creates the payment once per idempotency key; `replayed` when the key's stored answer was given instead. */
  write(creation: PaymentCreation): Promise<StoredResponse & { replayed: boolean }>;
  /** Prompts the payment's recompute at its expiry; concurrent ones go to Redis together, one job per second of expiry. */
  expireAt(paymentId: string, at: Date): Promise<void>;
  /**
   * The merchant's open (pending) payments in this mode, counted up to `atMost`: read at most
   * once a second per merchant and mode, plus those this process created since (`created`).
   */
  openPayments(merchantId: string, mode: Mode, atMost: number): Promise<number>;
  /** Counts a payment this process just created in `openPayments`' figure. */
  created(merchantId: string, mode: Mode): void;
};

/** How old a count of open payments may be (the cap is approximate by this much of a merchant's creates). */
const OPEN_COUNT_MAX_AGE_MS = 1_000;

/**
 * Payment creations written in batches, with the merchant settings they read: concurrent creates share one transaction
 * (`writePaymentCreations`), so under load Postgres commits once per batch instead of
 * once per payment, and an idle process writes each at once. A creation the batch did
 * not claim — its key used before or repeated in the batch — and every creation of a
 * batch that failed are written alone, with `writePaymentCreation`'s full idempotency
 * (and, when the database is down, its error): no request is answered from a batch
 * that did not commit.
 */
export function createBatchedCreations(db: Db, logger: Logger, prompts: Prompts, options: { maxInFlight?: number; maxBatch?: number } = {}): PaymentCreations {
  const batches = createBatcher<PaymentCreation, StoredResponse | undefined>(
    async (creations) => {
      try {
        return await writePaymentCreations(db, creations);
      } catch (error) {
        logger.warn({ err: error, creations: creations.length }, "batched payment creation failed; writing each alone");
        return creations.map(() => undefined);
      }
    },
    { maxInFlight: options.maxInFlight ?? 2, maxBatch: options.maxBatch ?? 64 },
  );
  const settings = createBatchedReads((ids) => findMerchantSettings(db, ids));
  const expiries = createBatcher<{ paymentId: string; at: Date }, void>(async (due) => {
    // Rounded up to the second: each payment's job runs at or after its expiry.
    const bySecond = new Map<number, Array<{ paymentId: string; at: Date }>>();
    for (const d of due) {
      const second = Math.ceil(d.at.getTime() / 1000);
      const group = bySecond.get(second);
      if (group) group.push(d);
      else bySecond.set(second, [d]);
    }
    const outcomes = new Map<number, Error | undefined>();
    await Promise.all(
      [...bySecond].map(([second, group]) =>
        prompts.expire(group.map((d) => d.paymentId), new Date(second * 1000)).then(
          () => outcomes.set(second, undefined),
          (error: unknown) => outcomes.set(second, error instanceof Error ? error : new Error(String(error))),
        ),
      ),
    );
    return due.map(({ at }) => outcomes.get(Math.ceil(at.getTime() / 1000)));
  });
  const openCounts = new Map<string, { at: number; count: Promise<number>; added: number }>();
  return {
    async openPayments(merchantId, mode, atMost) {
      const key = `${merchantId}:${mode}`;
      let entry = openCounts.get(key);
      if (!entry || performance.now() - entry.at > OPEN_COUNT_MAX_AGE_MS) {
        if (openCounts.size >= 10_000) openCounts.clear();
        const fresh = { at: performance.now(), count: countOpenPayments(db, merchantId, mode, atMost), added: 0 };
        openCounts.set(key, fresh);
        // A failed count is not kept: the next create asks again.
        fresh.count.catch(() => openCounts.get(key) === fresh && openCounts.delete(key));
        entry = fresh;
      }
      const counted = entry;
      return (await counted.count) + counted.added;
    },
    created(merchantId, mode) {
      const entry = openCounts.get(`${merchantId}:${mode}`);
      if (entry) entry.added++;
    },
    settings: (merchantId) => settings.load(merchantId),
    // One prepared primary-key read per request: read in batches (`key = any(…)`) it measured slower.
    storedResponse: (idempotency) => storedResponse(db, idempotency),
    expireAt: (paymentId, at) => expiries.load({ paymentId, at }),
    async write(creation) {
      const written = await batches.load(creation);
      if (written) return { ...written, replayed: false };
      const alone = await writePaymentCreation(db, creation);
      // The batch's COMMIT reached the database though its answer was lost (the connection
      // dropped): the stored answer holds this very payment, so this is its first answer, not
      // a replay (and its expiry is still to be prompted).
      const stored = (alone.body as { payment?: { id?: unknown } } | null)?.payment?.id;
      return alone.replayed && creation.payment.id !== undefined && stored === creation.payment.id ? { ...alone, replayed: false } : alone;
    },
  };
}

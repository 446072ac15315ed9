import type { Db } from "../db/client.ts";
import { withIdempotency, type StoredResponse } from "../db/idempotency.ts";
import { creationKeyOf, insertCreations, type PaymentCreation } from "../db/paymentCreations.ts";
import { recordPaymentEvents } from "../db/paymentEvents.ts";
import { insertPayments, type PaymentRow } from "../db/payments.ts";

/** Writes the `payment.created` event of payments just inserted, with `tx` (the transaction that inserts them). */
export async function recordCreated(tx: Db, rows: readonly PaymentRow[]): Promise<void> {
  await recordPaymentEvents(
    tx,
    rows.map((payment) => ({ payment, type: "payment.created" as const })),
  );
}

/**
 * One creation under `withIdempotency`: a concurrent duplicate waits for it, a finished
 * one is replayed. `before` runs first in its transaction (an agent's policy check).
 */
export function writePaymentCreation(db: Db, creation: PaymentCreation, before?: (tx: Db) => Promise<void>) {
  return withIdempotency(db, creation.idempotency, async (tx) => {
    await before?.(tx);
    const [row] = await insertPayments(tx, [creation.payment]);
    await recordCreated(tx, [row!]);
    return creation.respond(row!);
  });
}

/**
 * Many creations in one transaction, each with what `writePaymentCreation` writes: its
 * payment, stored response (with its key) and `payment.created` event (and deliveries).
 * A key this batch does not get (`insertCreations`) — used before, held by a request under
 * way, or repeated within the batch — gets `undefined`: its caller goes through
 * `writePaymentCreation`, which waits for or replays the first. Either everything commits
 * or nothing does.
 */
export async function writePaymentCreations(db: Db, creations: readonly PaymentCreation[]): Promise<Array<StoredResponse | undefined>> {
  const firsts = new Map<string, PaymentCreation>();
  for (const c of creations) if (!firsts.has(creationKeyOf(c.idempotency))) firsts.set(creationKeyOf(c.idempotency), c);
  const answers = new Map<PaymentCreation, StoredResponse>();
  await db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    const claimed = await insertCreations(tx, [...firsts.values()]);
    await recordCreated(
      tx,
      claimed.map((c) => c.row),
    );
    for (const { creation, response } of claimed) answers.set(creation, response);
  });
  return creations.map((c) => answers.get(c));
}

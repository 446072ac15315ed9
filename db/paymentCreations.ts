import { sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";
import { withIdempotency, type IdempotencyScope, type StoredResponse } from "./idempotency.ts";
import { recordSet } from "./jsonRecords.ts";
import { recordPaymentEvent, recordPaymentEvents } from "./paymentEvents.ts";
import { insertPayments } from "./payments.ts";
import { idempotencyKeys, type NewPayment, type PaymentRow } from "./schema/index.ts";

/** A payment to create once per idempotency key, and the answer to store for that key. */
export type PaymentCreation = {
  idempotency: IdempotencyScope;
  payment: NewPayment;
  /** The response stored and answered, from the payment as inserted. */
  respond: (row: PaymentRow) => StoredResponse;
};

/**
 * One creation under `withIdempotency`: a concurrent duplicate waits for it, a finished
 * one is replayed. `before` runs first in its transaction (an agent's policy check).
 */
export function writePaymentCreation(db: Db, creation: PaymentCreation, before?: (tx: Db) => Promise<void>) {
  return withIdempotency(db, creation.idempotency, async (tx) => {
    await before?.(tx);
    const [row] = await insertPayments(tx, [creation.payment]);
    await recordPaymentEvent(tx, row!, "payment.created");
    return creation.respond(row!);
  });
}

const keyOf = ({ merchantId, mode, scope, key }: IdempotencyScope) => JSON.stringify([merchantId, mode, scope, key]);

/**
 * Many creations in one transaction, each with what `writePaymentCreation` writes: its
 * payment, stored response (with its key) and `payment.created` event (and deliveries).
 * The payments go in first, so each key is written once, with its response: keys are
 * inserted in key order (two batches never wait on each other in a cycle) with
 * `on conflict do nothing`. A key this batch does not get — used before, held by a
 * request under way, or repeated within the batch — has its payment taken out again and
 * gets `undefined`: its caller goes through `writePaymentCreation`, which waits for or
 * replays the first. Either everything commits or nothing does.
 */
export async function writePaymentCreations(db: Db, creations: readonly PaymentCreation[]): Promise<Array<StoredResponse | undefined>> {
  const firsts = new Map<string, PaymentCreation>();
  for (const c of creations) if (!firsts.has(keyOf(c.idempotency))) firsts.set(keyOf(c.idempotency), c);
  const candidates = [...firsts.values()];
  const answers = new Map<PaymentCreation, StoredResponse>();

  await db.transaction(async (raw) => {
    const tx = raw as unknown as Db;
    const rows = await insertPayments(
      tx,
      candidates.map((c) => c.payment),
    );
    const responses = candidates.map((c, i) => c.respond(rows[i]!));
    const keys = recordSet(
      idempotencyKeys,
      candidates.map(({ idempotency: { merchantId, mode, scope, key, requestHash, replayWithinSeconds } }, i) => ({
        merchantId,
        mode,
        scope,
        key,
        requestHash,
        replayWithinSeconds: replayWithinSeconds ?? null,
        responseStatus: responses[i]!.status,
        responseBody: responses[i]!.body,
      })),
    );
    // A key whose window is over (a body fingerprint's) is claimed anew, as `withIdempotency` does.
    const claimedRows = await queryRows<{ merchant_id: string; mode: "live" | "test"; scope: string; key: string }>(
      tx,
      sql`insert into idempotency_keys as k (${keys.columns}) select ${keys.columns} from ${keys.records} order by merchant_id, mode, scope, key
        on conflict (merchant_id, mode, scope, key) do update set request_hash = excluded.request_hash, replay_within_seconds = excluded.replay_within_seconds,
          response_status = excluded.response_status, response_body = excluded.response_body, created_at = now()
        where k.replay_within_seconds is not null and k.created_at <= now() - make_interval(secs => k.replay_within_seconds)
        returning merchant_id, mode, scope, key`,
    );
    const claimedKeys = new Set(claimedRows.map((r) => keyOf({ merchantId: r.merchant_id, mode: r.mode, scope: r.scope, key: r.key, requestHash: "" })));
    const claimed = candidates.flatMap((c, i) => (claimedKeys.has(keyOf(c.idempotency)) ? [{ c, row: rows[i]!, response: responses[i]! }] : []));
    if (claimed.length < candidates.length) {
      const taken = rows.filter((_, i) => !claimedKeys.has(keyOf(candidates[i]!.idempotency))).map((r) => r.id);
      await tx.execute(sql`delete from payments where id = any(${sql.param(taken)}::uuid[])`);
    }
    await recordPaymentEvents(
      tx,
      claimed.map(({ row }) => ({ payment: row, type: "payment.created" as const })),
    );
    for (const { c, response } of claimed) answers.set(c, response);
  });
  return creations.map((c) => answers.get(c));
}

import { sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";
import type { IdempotencyScope, StoredResponse } from "./idempotency.ts";
import { recordSet } from "./jsonRecords.ts";
import { insertPayments } from "./payments.ts";
import { idempotencyKeys, type NewPayment, type PaymentRow } from "./schema/index.ts";

/** A payment to create once per idempotency key, and the answer to store for that key. */
export type PaymentCreation = {
  idempotency: IdempotencyScope;
  payment: NewPayment;
  /** The response stored and answered, from the payment as inserted. */
  respond: (row: PaymentRow) => StoredResponse;
};

export const creationKeyOf = ({ merchantId, mode, scope, key }: IdempotencyScope) => JSON.stringify([merchantId, mode, scope, key]);

/**
 * Inserts creations (each key once: the caller passes distinct keys) with `tx`: their
 * payments, then their keys with the stored responses, in key order (two batches never wait
 * on each other in a cycle) with `on conflict do nothing`. A key this batch does not get —
 * used before, or held by a request under way — has its payment taken out again. Returns
 * the creations that got their key, with their payment and response.
 */
export async function insertCreations(tx: Db, candidates: readonly PaymentCreation[]): Promise<Array<{ creation: PaymentCreation; row: PaymentRow; response: StoredResponse }>> {
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
  const claimedKeys = new Set(claimedRows.map((r) => creationKeyOf({ merchantId: r.merchant_id, mode: r.mode, scope: r.scope, key: r.key, requestHash: "" })));
  const claimed = candidates.flatMap((creation, i) => (claimedKeys.has(creationKeyOf(creation.idempotency)) ? [{ creation, row: rows[i]!, response: responses[i]! }] : []));
  if (claimed.length < candidates.length) {
    const taken = rows.filter((_, i) => !claimedKeys.has(creationKeyOf(candidates[i]!.idempotency))).map((r) => r.id);
    await tx.execute(sql`delete from payments where id = any(${sql.param(taken)}::uuid[])`);
  }
  return claimed;
}

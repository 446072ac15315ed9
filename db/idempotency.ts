import { and, eq, sql } from "drizzle-orm";
import { IdempotencyKeyReusedError, ServiceUnavailableError } from "../domain/errors.ts";
import { preparedPer, type Db } from "./client.ts";
import { idempotencyKeys } from "./schema/index.ts";
import type { Mode } from "../domain/mode.ts";

/**
 * One creation's key. `replayWithinSeconds`: the key marks a retry only this long after it was
 * first used (a body fingerprint, `replayWindowOf`); past it, the next request claims it anew.
 * Absent or null: for as long as the key is kept.
 */
export type IdempotencyScope = { merchantId: string; mode: Mode; scope: string; key: string; requestHash: string; replayWithinSeconds?: number | null };

/** A stored key that still marks a retry (its window, if it has one, not yet over). */
export const stillReplays = sql`(${idempotencyKeys.replayWithinSeconds} is null or ${idempotencyKeys.createdAt} > now() - make_interval(secs => ${idempotencyKeys.replayWithinSeconds}))`;
/** For `on conflict do update … where`: a stored key whose window is over, claimed by the new request. */
const windowOver = sql`${idempotencyKeys.replayWithinSeconds} is not null and ${idempotencyKeys.createdAt} <= now() - make_interval(secs => ${idempotencyKeys.replayWithinSeconds})`;

const rowOf = (scope: IdempotencyScope) =>
  and(
    eq(idempotencyKeys.merchantId, scope.merchantId),
    eq(idempotencyKeys.mode, scope.mode),
    eq(idempotencyKeys.scope, scope.scope),
    eq(idempotencyKeys.key, scope.key),
  );
export type StoredResponse = { status: number; body: unknown };

const storedRow = preparedPer((db) =>
  db
    .select({ requestHash: idempotencyKeys.requestHash, responseStatus: idempotencyKeys.responseStatus, responseBody: idempotencyKeys.responseBody })
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.merchantId, sql.placeholder("merchantId")),
        eq(idempotencyKeys.mode, sql.placeholder("mode")),
        eq(idempotencyKeys.scope, sql.placeholder("scope")),
        eq(idempotencyKeys.key, sql.placeholder("key")),
        stillReplays,
      ),
    )
    .prepare("idempotency_stored_response"),
);

/**
 * Runs `work` at most once per (account, mode, endpoint scope, key). The key row is
 * inserted first in the same transaction as the work: a concurrent duplicate blocks
 * on that insert until the first commits, then finds the stored response and replays
 * it. If the work fails, everything rolls back and a retry starts afresh.
 */
export async function withIdempotency(
  db: Db,
  scope: IdempotencyScope,
  work: (tx: Db) => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  return db.transaction(async (txRaw) => {
    const tx = txRaw as unknown as Db;
    const row = { merchantId: scope.merchantId, mode: scope.mode, scope: scope.scope, key: scope.key, requestHash: scope.requestHash, replayWithinSeconds: scope.replayWithinSeconds ?? null };
    const insert = tx.insert(idempotencyKeys).values(row);
    // A key whose window is over is claimed anew (its old answer is no retry's any more).
    const claimed = await (scope.replayWithinSeconds
      ? insert.onConflictDoUpdate({
          target: [idempotencyKeys.merchantId, idempotencyKeys.mode, idempotencyKeys.scope, idempotencyKeys.key],
          set: { requestHash: row.requestHash, replayWithinSeconds: row.replayWithinSeconds, responseStatus: null, responseBody: null, createdAt: sql`now()` },
          setWhere: windowOver,
        })
      : insert.onConflictDoNothing()
    ).returning({ key: idempotencyKeys.key });

    if (claimed.length === 0) {
      const [existing] = await tx.select().from(idempotencyKeys).where(rowOf(scope));
      // Gone between the conflict and this read (the hourly cleanup removed an expired key): asking again creates it anew.
      if (!existing || existing.responseStatus === null) throw new ServiceUnavailableError("The Idempotency-Key was being expired while this request used it; retry the request.");
      if (existing.requestHash !== scope.requestHash) throw new IdempotencyKeyReusedError(scope.key);
      return { status: existing.responseStatus, body: existing.responseBody, replayed: true };
    }

    const response = await work(tx);
    // The body as JSON text cast to jsonb: drizzle's jsonb on Bun's driver would store a JSON string of it.
    await tx
      .update(idempotencyKeys)
      .set({ responseStatus: response.status, responseBody: sql`${JSON.stringify(response.body)}::text::jsonb` })
      .where(rowOf(scope));
    return { ...response, replayed: false };
  });
}

/**
 * A response already stored for this key, for replaying a retry before any other work
 * (a retry must get its original answer even if rates or wallets changed meanwhile).
 * Undefined when the key is new or its first request is still running.
 */
export async function storedResponse(db: Db, scope: IdempotencyScope): Promise<(StoredResponse & { replayed: true }) | undefined> {
  const { merchantId, mode, scope: endpoint, key } = scope;
  const [existing] = await storedRow(db).execute({ merchantId, mode, scope: endpoint, key });
  if (!existing || existing.responseStatus === null) return undefined;
  if (existing.requestHash !== scope.requestHash) throw new IdempotencyKeyReusedError(scope.key);
  return { status: existing.responseStatus, body: existing.responseBody, replayed: true };
}

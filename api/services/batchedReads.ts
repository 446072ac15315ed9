import { createBatcher, type Batcher } from "../../domain/batcher.ts";

export type BatchedReads<T> = Batcher<string, T | null>;

/**
 * Reads by id in batches (the status reads): `load(id)` is the row with this id as of a
 * read that started after the call, or null when there is none. Batching as
 * `createBatcher`: an answer is never older than its request.
 */
export function createBatchedReads<T extends { id: string }>(
  read: (ids: readonly string[]) => Promise<T[]>,
  options: { maxInFlight?: number; maxBatch?: number } = {},
): BatchedReads<T> {
  return createBatcher(async (ids: readonly string[]) => {
    const byId = new Map((await read(ids)).map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id) ?? null);
  }, options);
}

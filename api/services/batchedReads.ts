import DataLoader from "dataloader";

export type BatchedReads<T> = {
  /** The row with this id as of a read that started after this call; null when there is none. */
  load(id: string): Promise<T | null>;
};

/**
 * Reads by id in batches (the status reads). At most `maxInFlight` reads go to Postgres at
 * once; requests that arrive meanwhile wait and go together in the next read, so under load
 * one query answers many requests, and an idle process reads each at once. Nothing is
 * cached: every answer comes from a read issued after its request arrived, never from one
 * already under way, so an answer is never older than its request. A read that fails
 * fails the requests it carried, and the next read goes ahead.
 */
export function createBatchedReads<T extends { id: string }>(
  read: (ids: readonly string[]) => Promise<T[]>,
  options: { maxInFlight?: number; maxBatch?: number } = {},
): BatchedReads<T> {
  const maxInFlight = options.maxInFlight ?? 2;
  let inFlight = 0;
  const held: Array<() => void> = [];
  const loader = new DataLoader<string, T | null>(
    async (ids) => {
      try {
        const rows = await read(ids);
        const byId = new Map(rows.map((row) => [row.id, row]));
        return ids.map((id) => byId.get(id) ?? null);
      } finally {
        // A finished read hands its slot to the batch waiting longest.
        const next = held.shift();
        if (next) next();
        else inFlight--;
      }
    },
    {
      cache: false,
      maxBatchSize: options.maxBatch ?? 256,
      // A batch stays open, gathering requests, until it has a read slot.
      batchScheduleFn: (dispatch) => {
        if (inFlight >= maxInFlight) return void held.push(dispatch);
        inFlight++;
        setImmediate(dispatch);
      },
    },
  );
  return { load: (id) => loader.load(id) };
}

import DataLoader from "dataloader";

export type Batcher<K, V> = {
  /** The answer for `key`, from a batch that started after this call. */
  load(key: K): Promise<V>;
};

/**
 * Gathers concurrent calls into batches for `run`, with at most `maxInFlight` batches
 * under way: calls that arrive meanwhile wait and go together in the next batch, so
 * under load one query serves many requests, and an idle process runs each at once.
 * Nothing is cached: every answer comes from a batch that started after its call. A
 * batch that fails fails the calls it carried (an `Error` in `run`'s answer fails that
 * call alone), and the next batch goes ahead.
 */
export function createBatcher<K, V>(
  run: (keys: readonly K[]) => Promise<ReadonlyArray<V | Error>>,
  options: { maxInFlight?: number; maxBatch?: number } = {},
): Batcher<K, V> {
  const maxInFlight = options.maxInFlight ?? 2;
  let inFlight = 0;
  const held: Array<() => void> = [];
  const loader = new DataLoader<K, V>(
    async (keys) => {
      try {
        return await run(keys);
      } finally {
        // A finished batch hands its slot to the batch waiting longest.
        const next = held.shift();
        if (next) next();
        else inFlight--;
      }
    },
    {
      cache: false,
      maxBatchSize: options.maxBatch ?? 256,
      // A batch stays open, gathering calls, until it has a slot.
      batchScheduleFn: (dispatch) => {
        if (inFlight >= maxInFlight) return void held.push(dispatch);
        inFlight++;
        setImmediate(dispatch);
      },
    },
  );
  return { load: (key) => loader.load(key) };
}

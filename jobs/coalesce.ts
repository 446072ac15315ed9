/**
 * Wraps a loop body so wake-ups coalesce: at most one run at a time, and exactly one
 * more if woken meanwhile (so nothing that arrived during a run is missed). Errors are
 * reported and the next wake-up tries again. `stop` ends the loop and waits for it.
 */
export function coalescing(run: () => Promise<void>, onError: (error: unknown) => void) {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  function wake(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await run();
        } catch (error) {
          onError(error);
        }
      } while (again && !stopped);
    })().finally(() => (running = null));
    return running;
  }

  return {
    wake,
    stopped: () => stopped,
    stop: async () => {
      stopped = true;
      await running;
    },
  };
}

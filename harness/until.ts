/**
 * Waiting in tests for what the service does in the background, one way for every test.
 * `until`: polls `fn` every 50 ms until it answers something (not undefined, null or false),
 * and returns that. `untilValue`: polls `read` every 100 ms until `done` holds, and returns the
 * value; a timeout says what it last read.
 */
export async function until<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined && value !== null && value !== false) return value as T;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

export async function untilValue<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value)) {
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v))}`);
    await Bun.sleep(100);
    value = await read();
  }
  return value;
}

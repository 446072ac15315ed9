/**
 * A test file's `afterAll`: runs each step in turn, each bounded to `boundMs` and none able to
 * stop the rest — a step that throws at once (Elysia's `stop()` on an app that never listened,
 * after a failed `beforeAll`) included. A step skipped would leave its chain, subscriber or
 * workers running into the next test files.
 */
export async function teardown(steps: Array<() => unknown>, boundMs = 15_000): Promise<void> {
  for (const step of steps) {
    const run = Promise.resolve()
      .then(step)
      .catch(() => {});
    await Promise.race([run, Bun.sleep(boundMs)]);
  }
}

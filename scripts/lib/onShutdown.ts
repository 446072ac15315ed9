/**
 * Runs `stop` once on SIGINT/SIGTERM/SIGHUP, then exits. A second signal exits at once, so
 * an operator is never stuck behind a hung shutdown. SIGHUP is the terminal closing: left to
 * its default, the process died without stopping what it started (the sandbox's embedded
 * Postgres ran on, and the next start on its data directory failed).
 */
export function onShutdown(stop: () => Promise<void>, log: (msg: string) => void = console.error): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) process.exit(130);
    stopping = true;
    log(`${signal} received, shutting down…`);
    stop().then(
      () => process.exit(0),
      (error) => {
        log(`shutdown failed: ${(error as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", () => handler("SIGINT"));
  process.on("SIGTERM", () => handler("SIGTERM"));
  process.on("SIGHUP", () => handler("SIGHUP"));
}

/**
 * For a role started by `npm start`: stop when the supervisor is gone (killed with
 * SIGKILL, it cannot stop us), instead of running on as an orphan.
 */
export function exitWithParent(stop: () => Promise<void>): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    void stop().finally(() => process.exit(1));
  }, 1_000);
  timer.unref();
}

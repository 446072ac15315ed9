import type { ChildProcess } from "node:child_process";
import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import { spawnIndexer } from "./run.ts";

/**
 * Waits before starting Ponder again: doubling from 1 s up to 5 s, back to 1 s after a minute of
 * running. A start against a node that is still down costs a few seconds of one core; a longer
 * wait would add to the chain's catch-up once the node is back (goal: 30 s).
 */
const FIRST_DELAY_MS = 1_000;
const MAX_DELAY_MS = 5_000;
const HEALTHY_AFTER_MS = 60_000;

/**
 * Runs one chain's Ponder and starts it again whenever it exits on its own. Ponder exits when
 * its database goes away (a Postgres restart or failover) or its chain's node does (and cannot
 * start while it stays down); the indexer role stays up and resumes from Ponder's checkpoint
 * once they are back, so an outage needs no restart of any role, and each chain's Ponder backs
 * off on its own. `stop` ends it for good.
 */
export function superviseIndexer(
  config: Config,
  databaseUrl: string,
  options: {
    chainId: string;
    port: number;
    logLevel: string;
    env?: Record<string, string>;
    /** Before each restart (its failure is logged, the restart goes on). */
    onExit?: () => Promise<void>;
    /** The first start waits for it (settled either way). */
    after?: Promise<unknown>;
  },
  logger: Logger,
) {
  let child: ChildProcess | null = null;
  let stopping = false;
  let delay = FIRST_DELAY_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const start = () => {
    const startedAt = Date.now();
    const c = spawnIndexer(config, databaseUrl, options);
    child = c;
    let ended = false;
    // A process that could not be spawned (ENOENT, EAGAIN) reports "error", maybe with no "exit":
    // either way it is started again, once.
    const onEnd = (code: number | null, signal: NodeJS.Signals | null, error?: Error) => {
      if (ended) return;
      ended = true;
      child = null;
      if (stopping) return;
      if (error) logger.error({ err: error, chainId: options.chainId }, "the indexer (Ponder) could not be started");
      if (Date.now() - startedAt > HEALTHY_AFTER_MS) delay = FIRST_DELAY_MS;
      logger.error({ code, signal, chainId: options.chainId, restartInMs: delay }, "the indexer (Ponder) exited; starting it again");
      const wait = delay;
      void (options.onExit?.() ?? Promise.resolve())
        .catch((err: Error) => logger.warn({ err, chainId: options.chainId }, "could not release the exited Ponder's schema lock; its restart waits for the lock to lapse"))
        .then(() => {
          if (!stopping) timer = setTimeout(start, wait);
        });
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    };
    c.once("exit", (code, signal) => onEnd(code, signal));
    c.once("error", (error) => onEnd(null, null, error));
  };
  void (options.after ?? Promise.resolve()).catch(() => {}).then(() => {
    if (!stopping) start();
  });

  return {
    /** The running Ponder's process id; null between a crash and its restart. */
    pid: () => child?.pid ?? null,
    stop: async () => {
      stopping = true;
      clearTimeout(timer);
      const c = child;
      if (!c) return;
      const exited = new Promise((resolve) => c.once("exit", resolve));
      c.kill("SIGTERM");
      await exited;
    },
  };
}

import { SQL } from "bun";
import type { Logger } from "../config/logger.ts";

/** How often a pool's probe asks `select 1` on its own connection, and how long it waits for the answer. */
export type PoolProbe = { everyMs: number; timeoutMs: number };

export type ProbedPool = {
  /** Stands for the pool of the moment: every call and property goes to it. */
  client: SQL;
  close(): Promise<void>;
};

/**
 * A Bun SQL pool that is replaced when the database stops answering without refusing.
 * A network that drops packets (a partition, a failover that moved the database's address)
 * leaves every open connection waiting for ever: the kernel gives up after ~15 minutes, and
 * Bun's client has no query timeout. A probe on a connection of its own asks `select 1`
 * every `everyMs`; when no answer comes within `timeoutMs`, the pool's connections are
 * dropped (what waited on them fails as a lost connection: 503 in the API, a retried job
 * in the workers, each transaction rolled back or, if its COMMIT had left, as committed as
 * any lost connection's) and a new pool takes the calls. A database that refuses or
 * restarts needs none of this: the pool reconnects by itself, and the probe only acts
 * on silence. `open(max)` makes a pool of up to `max` connections (the probe's is 1: Bun
 * opens a pool's connections ahead of need).
 */
export function createProbedPool(open: (max?: number) => SQL, probe: PoolProbe, onReplace: (waitedMs: number) => void): ProbedPool {
  let pool = open();
  let prober = open(1);
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // Methods bound to the pool of the moment, once each (drizzle calls `unsafe` per query).
  const bound = new Map<PropertyKey, unknown>();

  const check = async () => {
    const started = Date.now();
    let answered = false;
    let deadline: ReturnType<typeof setTimeout> | undefined;
    const silent = new Promise<void>((resolve) => (deadline = setTimeout(resolve, probe.timeoutMs)));
    // A refusal is not silence: the pool reconnects to a database that came back.
    const asked = prober`select 1`.then(
      () => void (answered = true),
      () => void (answered = true),
    );
    await Promise.race([asked, silent]);
    clearTimeout(deadline);
    // An event loop held up past the wait runs timers before reading sockets: an answer that
    // arrived meanwhile is read first, so a busy process is not taken for a silent database.
    if (!answered) await new Promise((resolve) => setImmediate(resolve));
    if (answered || closed) return;
    const [stuck, stuckProber] = [pool, prober];
    pool = open();
    prober = open(1);
    bound.clear();
    onReplace(Date.now() - started);
    await Promise.all([stuck.close({ timeout: 0 }), stuckProber.close({ timeout: 0 })]).catch(() => {});
  };

  const schedule = () => {
    if (closed) return;
    timer = setTimeout(() => void check().finally(schedule), probe.everyMs);
    timer.unref?.();
  };
  schedule();

  const client = new Proxy(function pooled() {} as unknown as SQL, {
    apply: (_target, _this, args: unknown[]) => (pool as unknown as (...a: unknown[]) => unknown)(...args),
    get: (_target, property) => {
      const cached = bound.get(property);
      if (cached !== undefined) return cached;
      const value = Reflect.get(pool, property, pool) as unknown;
      if (typeof value !== "function") return value;
      const method = (value as (...a: unknown[]) => unknown).bind(pool);
      bound.set(property, method);
      return method;
    },
  });

  return {
    client,
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await Promise.all([pool.close(), prober.close({ timeout: 0 })]);
    },
  };
}

/** A role's probe: every 2 s (or the wait, if shorter), replacing the pool after `timeoutMs` of silence; none when 0. */
export function rolePoolProbe(timeoutMs: number, logger: Logger) {
  if (timeoutMs === 0) return undefined;
  return {
    everyMs: Math.min(2_000, timeoutMs),
    timeoutMs,
    onReplace: (waitedMs: number) => logger.error({ waitedMs }, "database did not answer its probe: its connections were dropped and new ones opened"),
  };
}

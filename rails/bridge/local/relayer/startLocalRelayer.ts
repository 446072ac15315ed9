import pg from "pg";
import { ensureFactories } from "./ensureFactories.ts";
import { relayerTick } from "./relayerTick.ts";
import type { RelayerDeps } from "./sendTransfer.ts";

/** Session advisory lock key: one relayer at a time across every process. */
const RELAYER_LOCK = 726_200;

/**
 * Runs the local bridge's relayer until `stop`: waits for the relayer lock (a second
 * instance stands by; the lock goes with a dead process's session, and a relayer whose
 * session dropped stops and waits for the lock again), makes sure its
 * forwarder factories exist, then runs `relayerTick` every `BRIDGE_LOCAL_POLL_MS`.
 * `ready` resolves once the factories are in place (quotes can be served).
 */
export function startLocalRelayer(deps: RelayerDeps & { databaseUrl: string }) {
  const pollMs = deps.config.bridge.local?.pollMs ?? 1_000;
  let stopped = false;
  let wake: (() => void) | null = null;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => ((wake = null), resolve()), ms);
      wake = () => (clearTimeout(timer), (wake = null), resolve());
    });
  let markReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  /** A session holding the relayer lock, or null once stopped; `lost` turns true when the session drops. */
  const acquire = async (): Promise<{ client: pg.Client; lost: boolean } | null> => {
    while (!stopped) {
      const held = { client: new pg.Client({ connectionString: deps.databaseUrl }), lost: false };
      // A database restart drops the session (57P01), emitted as an event that would crash the
      // process unheard; its lock goes with it, so the relayer stops and waits for it again.
      held.client.on("error", (error) => {
        held.lost = true;
        deps.logger.warn({ err: error }, "local relayer: its lock session was dropped; taking the lock again");
      });
      try {
        await held.client.connect();
        const { rows } = await held.client.query<{ locked: boolean }>("select pg_try_advisory_lock($1) as locked", [RELAYER_LOCK]);
        if (rows[0]?.locked && !held.lost) return held;
      } catch (error) {
        deps.logger.warn({ err: error }, "local relayer: could not take its lock; retrying");
      }
      await held.client.end().catch(() => {});
      await sleep(pollMs * 5);
    }
    return null;
  };
  const running = (async () => {
    while (!stopped) {
      const lock = await acquire();
      if (!lock) return;
      try {
        while (!stopped && !lock.lost) {
          try {
            await ensureFactories(deps);
            markReady();
            break;
          } catch (error) {
            deps.logger.warn({ err: error }, "local relayer: could not set up its factories; retrying");
            await sleep(pollMs * 5);
          }
        }
        // Only while the lock is held: a second relayer may have taken it once it went.
        while (!stopped && !lock.lost) {
          await relayerTick(deps).catch((error: unknown) => deps.logger.warn({ err: error }, "local relayer: pass failed; the next one resumes"));
          await sleep(pollMs);
        }
      } finally {
        await lock.client.end().catch(() => {});
      }
    }
  })();
  running.catch((error: unknown) => deps.logger.error({ err: error }, "local relayer stopped"));

  return {
    ready,
    stop: async () => {
      stopped = true;
      wake?.();
      await running.catch(() => {});
    },
  };
}

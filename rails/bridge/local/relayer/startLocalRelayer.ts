import pg from "pg";
import { ensureFactories } from "./ensureFactories.ts";
import { relayerTick } from "./relayerTick.ts";
import type { RelayerDeps } from "./sendTransfer.ts";

/** Session advisory lock key: one relayer at a time across every process. */
const RELAYER_LOCK = 726_200;

/**
 * Runs the local bridge's relayer until `stop`: waits for the relayer lock (a second
 * instance stands by; the lock goes with a dead process's session), makes sure its
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

  const lock = new pg.Client({ connectionString: deps.databaseUrl });
  // A database restart drops this idle session (57P01), emitted as an event that would crash
  // the process unheard. The relayer goes on: its transfers are planned once in its books (one
  // row per deposit and kind), and the sandbox runs a single relayer.
  lock.on("error", (error) => deps.logger.warn({ err: error }, "local relayer: its lock session was dropped"));
  const running = (async () => {
    await lock.connect();
    while (!stopped) {
      const { rows } = await lock.query<{ locked: boolean }>("select pg_try_advisory_lock($1) as locked", [RELAYER_LOCK]);
      if (rows[0]?.locked) break;
      await sleep(pollMs * 5);
    }
    while (!stopped) {
      try {
        await ensureFactories(deps);
        markReady();
        break;
      } catch (error) {
        deps.logger.warn({ err: error }, "local relayer: could not set up its factories; retrying");
        await sleep(pollMs * 5);
      }
    }
    while (!stopped) {
      await relayerTick(deps).catch((error: unknown) => deps.logger.warn({ err: error }, "local relayer: pass failed; the next one resumes"));
      await sleep(pollMs);
    }
  })().finally(() => lock.end().catch(() => {}));
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

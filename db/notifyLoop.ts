import pg from "pg";
import type { Logger } from "../config/logger.ts";

/**
 * A loop woken by Postgres NOTIFY on `channel`, and every `intervalMs` as the safety
 * net (a missed notification, a dropped connection). Wake-ups coalesce: at most one run
 * at a time, and exactly one more if woken meanwhile, so nothing that arrived during a
 * run is missed. A lost listener reconnects on the next tick; `prepare` runs on the
 * listening connection first (and on every tick), and holds listening off while it
 * answers false. `ready` settles after the first run.
 *
 * With `minSpacingMs`, a run that follows another back to back waits until that long
 * after the last one started: under a steady stream of notifications the loop runs at
 * most that often instead of continuously (a lone wake-up still runs at once).
 *
 * With `onNotification`, a notification is handed its payload instead of waking the
 * loop: a listener that acts on what each NOTIFY names (the checkout streams) and keeps
 * `run` as the periodic catch-up.
 */
export function startNotifyLoop(options: {
  name: string;
  channel: string;
  databaseUrl: string | undefined;
  intervalMs: number;
  logger: Logger;
  run: () => Promise<void>;
  prepare?: (client: pg.Client) => Promise<boolean>;
  onNotification?: (payload: string) => void;
  minSpacingMs?: number;
}) {
  const { logger, name } = options;
  const loop = coalescing(options.run, (error) => logger.warn({ err: error }, `${name} failed; will retry`), options.minSpacingMs ?? 0);
  let listener: pg.Client | null = null;

  async function listen(): Promise<void> {
    if (loop.stopped() || !options.databaseUrl) return;
    if (listener) {
      // A connection a partition or a moved address silenced raises no error: it just hears
      // nothing. Asked to answer within a few seconds, one that cannot is dropped and opened again.
      const current = listener;
      // A fixed deadline, not the tick: a busy database answering in 60 ms must not cost a 50 ms loop its listener.
      if (await answersWithin(current, PROBE_MS)) {
        await options.prepare?.(current); // what it set up may have been dropped and recreated since
        return;
      }
      logger.warn(`${name} listener did not answer; reconnecting`);
      if (listener === current) listener = null;
      void current.end().catch(() => {});
    }
    // A connect that hangs (a partition, a slow failover) gives up in time for the next tick.
    const client = new pg.Client({ connectionString: options.databaseUrl, connectionTimeoutMillis: Math.max(options.intervalMs, 5_000), keepAlive: true });
    client.on("error", (error) => {
      logger.warn({ err: error }, `${name} listener lost; reconnecting`);
      if (listener === client) listener = null;
      client.end().catch(() => {});
    });
    try {
      await client.connect();
      if (options.prepare && !(await options.prepare(client))) {
        await client.end();
        return;
      }
      const { onNotification } = options;
      client.on("notification", onNotification ? (message) => onNotification(message.payload ?? "") : () => void loop.wake());
      await client.query(`listen ${options.channel}`);
    } catch (error) {
      // A connection that failed half way (prepare or LISTEN refused) is closed, not left open.
      await client.end().catch(() => {});
      throw error;
    }
    if (loop.stopped()) {
      await client.end();
      return;
    }
    listener = client;
  }

  // One attempt to listen at a time: ticks during a connect that hangs do not open more
  // connections (each would stay open, unreferenced, once the network came back).
  let attempt: Promise<void> | null = null;
  const tick = () => {
    attempt ??= listen()
      .catch((error) => logger.warn({ err: error }, `${name} could not listen; polling`))
      .finally(() => (attempt = null));
    return attempt.then(() => loop.wake());
  };
  const timer = setInterval(() => void tick(), options.intervalMs);
  const ready = tick();

  return {
    /** Runs the loop now (tests, and callers that just wrote what it acts on). */
    wake: loop.wake,
    ready,
    /** Whether the listening connection is up (notifications are being heard). */
    listening: () => listener !== null,
    stop: async () => {
      clearInterval(timer);
      await ready.catch(() => {});
      await loop.stop();
      await listener?.end().catch(() => {});
      listener = null;
    },
  };
}

/** The longest a listening connection's probe may take. */
const PROBE_MS = 5_000;

/** Whether `client` answers a trivial query within `ms`. */
async function answersWithin(client: pg.Client, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const answered = client.query("select 1").then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([answered, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Coalescing wake-ups around `run`; errors are reported and the next wake-up tries again. */
function coalescing(run: () => Promise<void>, onError: (error: unknown) => void, minSpacingMs: number) {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  function wake(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      for (;;) {
        again = false;
        const started = performance.now();
        try {
          await run();
        } catch (error) {
          onError(error);
        }
        if (!again || stopped) break;
        const wait = started + minSpacingMs - performance.now();
        if (wait > 0) await Bun.sleep(wait);
        if (stopped) break;
      }
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

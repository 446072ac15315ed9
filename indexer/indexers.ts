import pg from "pg";
import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import { chainSchema } from "../config/indexer.ts";
import { syncIndexedViews } from "../rails/evm/readModel/indexedViews.ts";
import { holdIndexerRole, releaseDeadPonderLock } from "../rails/evm/readModel/ponderLock.ts";
import { superviseIndexer } from "./supervise.ts";

/** How often the views schema is checked against the chains' Ponders (a new one, one ready). */
const VIEWS_EVERY_MS = 2_000;

/**
 * The indexer role's work: one supervised Ponder per EVM chain, on consecutive ports from
 * `port`, each restarted with its own backoff, so a chain whose node is dead stalls only its
 * own payments; and the views schema kept one face over their schemas (`syncIndexedViews`),
 * checked every 2 s. `syncViews` runs a check now (tests wait for it).
 * Only the process holding the role's lock (one per `INDEXER_SCHEMA`) releases Ponder's schema
 * locks: at its start (left by a killed predecessor) and when one of its own Ponders exits.
 */
export function superviseIndexers(
  config: Config,
  databaseUrl: string,
  /** `ports`: one per chain, instead of consecutive ones from `port` (tests: each port checked free on its own). */
  options: { chainIds: readonly string[]; port: number; ports?: readonly number[]; logLevel: string; env?: Record<string, string> },
  logger: Logger,
) {
  // The only indexer role of this INDEXER_SCHEMA may release the schema lock its own dead Ponder
  // left (a killed Ponder's restart would wait 25 s for it); taken on a connection of its own.
  let role: pg.Client | null = null;
  let warnedShared = false;
  let claiming: Promise<void> | null = null;
  // One attempt at a time: a second session of this same process would find the lock taken.
  const claimRole = () => (claiming ??= tryClaim().finally(() => (claiming = null)));
  const tryClaim = async () => {
    if (role) return;
    const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000, keepAlive: true });
    client.on("error", () => {
      if (role === client) role = null;
      void client.end().catch(() => {});
    });
    await client.connect();
    if (await holdIndexerRole(client, config.indexer.schema)) {
      role = client;
      return;
    }
    await client.end();
    if (!warnedShared) logger.warn({ schema: config.indexer.schema }, "another indexer role runs this INDEXER_SCHEMA: a Ponder that dies waits for its schema lock to lapse (25 s) before it starts again");
    warnedShared = true;
  };
  const releaseLock = (chainId: string) => async () => {
    if (role) await releaseDeadPonderLock(role, chainSchema(config.indexer.schema, chainId));
  };
  // Holding the role, any Ponder lock on its schemas was left by a predecessor that died (a
  // killed role): released before the first starts, which would otherwise wait it out.
  const claimed = claimRole().then(() => Promise.all(options.chainIds.map((chainId) => releaseLock(chainId)())));
  claimed.catch((err: Error) => logger.warn({ err }, "could not check the indexer's schema locks; Ponder waits for a dead one to lapse"));
  const portOf = (i: number) => options.ports?.[i] ?? options.port + i;
  const chains = options.chainIds.map((chainId, i) => ({
    chainId,
    port: portOf(i),
    ponder: superviseIndexer(config, databaseUrl, { chainId, port: portOf(i), logLevel: options.logLevel, env: options.env, onExit: releaseLock(chainId), after: claimed }, logger),
  }));
  // One connection at a time; a lost one is replaced at the next check, a silent one given up on.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1, connectionTimeoutMillis: 5_000, query_timeout: 15_000 });
  pool.on("error", () => {});
  let lastError = "";
  const syncViews = async () => {
    const client = await pool.connect();
    try {
      const sources = await syncIndexedViews(client, { schema: config.indexer.schema, viewsSchema: config.indexer.viewsSchema, chainIds: options.chainIds });
      client.release();
      return sources;
    } catch (error) {
      // Its transaction may still be open (a query that timed out): the connection is dropped.
      client.release(true);
      throw error;
    }
  };
  let running: Promise<void> | null = null;
  const tick = () => {
    // A check still running (a slow database) is not queued behind.
    running ??= claimRole()
      .then(syncViews)
      .then(
        () => void (lastError = ""),
        (error: Error) => {
          // Logged once per distinct failure: a database outage would otherwise log every 2 s.
          if (error.message !== lastError) logger.warn({ err: error }, "could not update the indexer's views; will retry");
          lastError = error.message;
        },
      )
      .finally(() => (running = null));
  };
  tick();
  const timer = setInterval(tick, VIEWS_EVERY_MS);

  return {
    chains: chains.map(({ chainId, port, ponder }) => ({ chainId, port, pid: ponder.pid })),
    syncViews,
    stop: async () => {
      clearInterval(timer);
      await Promise.all(chains.map((c) => c.ponder.stop()));
      await running;
      await pool.end();
      await role?.end().catch(() => {});
    },
  };
}

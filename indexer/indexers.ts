import pg from "pg";
import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import { syncIndexedViews } from "../rails/evm/readModel/indexedViews.ts";
import { superviseIndexer } from "./supervise.ts";

/** How often the views schema is checked against the chains' Ponders (a new one, one ready). */
const VIEWS_EVERY_MS = 2_000;

/**
 * The indexer role's work: one supervised Ponder per EVM chain, on consecutive ports from
 * `port`, each restarted with its own backoff, so a chain whose node is dead stalls only its
 * own payments; and the views schema kept one face over their schemas (`syncIndexedViews`),
 * checked every 2 s. `syncViews` runs a check now (tests wait for it).
 */
export function superviseIndexers(
  config: Config,
  databaseUrl: string,
  options: { chainIds: readonly string[]; port: number; logLevel: string; env?: Record<string, string> },
  logger: Logger,
) {
  const chains = options.chainIds.map((chainId, i) => ({
    chainId,
    port: options.port + i,
    ponder: superviseIndexer(config, databaseUrl, { chainId, port: options.port + i, logLevel: options.logLevel, env: options.env }, logger),
  }));
  // One connection at a time; a lost one is replaced at the next check.
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1, connectionTimeoutMillis: 5_000 });
  pool.on("error", () => {});
  let lastError = "";
  const syncViews = async () => {
    const client = await pool.connect();
    try {
      return await syncIndexedViews(client, { schema: config.indexer.schema, viewsSchema: config.indexer.viewsSchema, chainIds: options.chainIds });
    } finally {
      client.release();
    }
  };
  let running = Promise.resolve();
  const tick = () => {
    running = syncViews().then(
      () => void (lastError = ""),
      (error: Error) => {
        // Logged once per distinct failure: a database outage would otherwise log every 2 s.
        if (error.message !== lastError) logger.warn({ err: error }, "could not update the indexer's views; will retry");
        lastError = error.message;
      },
    );
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
    },
  };
}

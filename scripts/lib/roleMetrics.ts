import type { Config } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import { createDb } from "../../db/client.ts";
import { watchChains } from "../../metrics/chainMetrics.ts";
import { startMetricsServer } from "../../metrics/metricsServer.ts";
import { fetchPonderMetrics } from "../../metrics/ponderMetrics.ts";
import { labelRole } from "../../metrics/registry.ts";
import { createChainStatusService } from "../../rails/chainStatus.ts";

/**
 * Each role's `/metrics`, behind the operator token: the API serves it on its own port
 * (`api/routes/operator.ts`); the worker on `WORKER_METRICS_PORT` (its jobs, queues and
 * transfers); the indexer on `INDEXER_METRICS_PORT`: every enabled network's indexer lag
 * (each rail's indexed head against the chain's, as `/payments/health` computes it) and
 * Ponder's own `ponder_*` metrics. Returns what stops it.
 */
export function startRoleMetrics(role: string, config: Config, logger: Logger, databaseUrl: string): () => Promise<void> {
  labelRole(role);
  const { token, metricsHost: host, metricsPorts } = config.operator;
  if (!token || role === "api") return async () => {};
  if (role === "worker") {
    const server = startMetricsServer({ host, port: metricsPorts.worker, token, logger });
    return async () => server?.stop();
  }
  // A new role (the Solana subscriber) gets a port of its own here and serves the same way.
  if (role !== "indexer" || metricsPorts.indexer === 0) return async () => {};
  const handle = createDb(databaseUrl, { max: 2 });
  const unwatch = watchChains(createChainStatusService(config, handle.db), config.networks.filter((n) => n.enabled));
  const server = startMetricsServer({ host, port: metricsPorts.indexer, token, logger, extra: () => fetchPonderMetrics(config.indexer.port) });
  return async () => {
    await server?.stop();
    unwatch();
    await handle.close();
  };
}

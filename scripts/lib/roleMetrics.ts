import type { Config } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import { createDb } from "../../db/client.ts";
import { rolePoolProbe } from "../../db/probedPool.ts";
import { watchChains } from "../../rails/chainMetrics.ts";
import { startMetricsServer } from "../../metrics/metricsServer.ts";
import { indexedEvmNetworks } from "../../config/indexer.ts";
import { fetchAllPonderMetrics } from "../../metrics/ponderMetrics.ts";
import { watchProviders } from "../../rails/rpcRotation/metrics.ts";
import { labelRole } from "../../metrics/registry.ts";
import { createChainStatusService } from "../../rails/chainStatus.ts";
import { networksFollowedBy } from "../../rails/index.ts";
import { railRole } from "../../plugins/index.ts";

/**
 * Each role's `/metrics`, behind the operator token: the API serves it on its own port
 * (`api/routes/operator.ts`); the worker on `WORKER_METRICS_PORT` (its jobs, queues and
 * transfers); the indexer on `INDEXER_METRICS_PORT`: its EVM networks' lag (each indexed
 * head against the chain's, as `/payments/health` computes it) and Ponder's own `ponder_*`
 * metrics; a rail's role (the Solana subscriber) on its plugin's port: its networks' lag and the
 * rail's own gauges; both, each RPC provider in
 * use or dropped and why. Returns what stops it.
 */
export function startRoleMetrics(role: string, config: Config, logger: Logger, databaseUrl: string): () => Promise<void> {
  labelRole(role);
  const { token, metricsHost: host, metricsPorts } = config.operator;
  if (!token || role === "api") return async () => {};
  if (role === "worker") {
    const server = startMetricsServer({ host, port: metricsPorts.worker, token, logger });
    return async () => server?.stop();
  }
  // The indexer and a rail's role (the Solana subscriber) each report their own networks' lag.
  const port = role === "indexer" ? metricsPorts.indexer : (railRole(role)?.metricsPort(config) ?? 0);
  const followed = networksFollowedBy(config, role);
  if (port === 0) return async () => {};
  const handle = createDb(databaseUrl, { max: 2, probe: rolePoolProbe(config.databaseProbeTimeoutMs, logger) });
  const unwatch = watchChains(createChainStatusService(config, handle.db), followed);
  // This process's own probes of the providers (Ponder's child judges them by the same rules).
  void watchProviders(followed);
  const extra = role === "indexer" ? () => fetchAllPonderMetrics(ponderPorts(config)) : undefined;
  const server = startMetricsServer({ host, port, token, logger, extra });
  return async () => {
    await server?.stop();
    unwatch();
    await handle.close();
  };
}

/** Each chain's Ponder and its port, as the indexer role starts them (`indexer/indexers.ts`); none if the configuration is refused (the role exits then). */
function ponderPorts(config: Config): Array<{ chainId: string; port: number }> {
  try {
    return indexedEvmNetworks(config, process.env).map((n, i) => ({ chainId: n.chainId, port: config.indexer.port + i }));
  } catch {
    return [];
  }
}

import { collectDefaultMetrics, Registry } from "prom-client";

/**
 * The one registry of this process. Every metric of the service is `stablepay_…`; the
 * process's own (CPU, memory, event loop) come from prom-client's defaults. Metrics are
 * defined where they are observed (`metrics/*.ts`), so each role exposes what it does:
 * the API its requests, the worker its jobs and queues, the indexer its lag.
 */
export const registry = new Registry();

collectDefaultMetrics({ register: registry });

/** Labels every series of this process with its role (`api`, `worker`, `indexer`, …). */
export function labelRole(role: string): void {
  registry.setDefaultLabels({ role });
}

/** The Prometheus text exposition of every metric of this process. */
export const renderMetrics = () => registry.metrics();

export const metricsContentType = registry.contentType;

import type { Logger } from "../config/logger.ts";
import { hasOperatorToken, OPERATOR_CHALLENGE } from "./operatorToken.ts";
import { metricsContentType, renderMetrics } from "./registry.ts";

export type MetricsServerOptions = {
  host: string;
  /** 0: no server. */
  port: number;
  /** The operator token; null: no server (metrics are never served without one). */
  token: string | null;
  logger: Logger;
  /** More exposition text appended to ours (the indexer adds Ponder's `ponder_*` metrics). */
  extra?: () => Promise<string>;
};

/**
 * A role without an HTTP server of its own (worker, indexer) serves `GET /metrics` here,
 * behind the operator token. A port already taken is logged, not fatal: the role's work
 * matters more than its metrics.
 */
export function startMetricsServer(options: MetricsServerOptions): { url: string; stop: () => Promise<void> } | null {
  const { token, logger } = options;
  if (!token || options.port === 0) return null;
  try {
    const server = Bun.serve({
      hostname: options.host,
      port: options.port,
      async fetch(request) {
        if (new URL(request.url).pathname !== "/metrics") return new Response("not found\n", { status: 404 });
        if (request.method !== "GET") return new Response("method not allowed\n", { status: 405, headers: { allow: "GET" } });
        if (!hasOperatorToken(request.headers.get("authorization"), token)) {
          return new Response("operator token required\n", { status: 401, headers: { "www-authenticate": OPERATOR_CHALLENGE } });
        }
        const [ours, theirs] = await Promise.all([renderMetrics(), options.extra?.().catch(() => "") ?? ""]);
        return new Response(theirs ? `${ours}\n${theirs}` : ours, { headers: { "content-type": metricsContentType } });
      },
    });
    const url = `http://${options.host}:${server.port}/metrics`;
    logger.info({ url }, "metrics listening");
    return { url, stop: () => server.stop() };
  } catch (error) {
    logger.warn({ err: error, port: options.port }, "metrics server could not start; this role runs without /metrics");
    return null;
  }
}

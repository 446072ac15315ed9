import { Elysia } from "elysia";
import { NotFoundError, QueueUnavailableError, UnauthorizedOperatorError } from "../../domain/errors.ts";
import { hasOperatorToken, OPERATOR_CHALLENGE } from "../../metrics/operatorToken.ts";
import { metricsContentType, renderMetrics } from "../../metrics/registry.ts";
import type { ApiDeps } from "../deps.ts";
import { DASHBOARD_PATH } from "../queueDashboard.ts";

/**
 * Operators' routes, behind `OPERATOR_TOKEN` (Bearer, or Basic with the token as password
 * for a browser): `GET /metrics` (Prometheus text) and the queue dashboard at
 * `/admin/queues` (built by `buildQueueDashboard`). Without a token both answer 404:
 * nothing about the service's internals is served unprotected.
 */
export const operatorRoutes = ({ config, queueDashboard, redis }: ApiDeps) => {
  const { token } = config.operator;
  const guard = (request: Request) => {
    if (!token) throw new NotFoundError(`Operator endpoints are off: set OPERATOR_TOKEN to serve ${new URL(request.url).pathname}.`);
    if (!hasOperatorToken(request.headers.get("authorization"), token)) throw new UnauthorizedOperatorError(OPERATOR_CHALLENGE);
  };
  const app = new Elysia({ name: "operator" })
    // Before routing, so the dashboard's own routes (and its unknown paths) are all behind the token.
    .onRequest(({ request }) => {
      // Every request passes here: parse the URL only for one that may be the dashboard's.
      if (!request.url.includes(DASHBOARD_PATH)) return;
      const path = new URL(request.url).pathname;
      if (path === DASHBOARD_PATH || path.startsWith(`${DASHBOARD_PATH}/`)) guard(request);
      // The dashboard's data calls read Redis: without it they answer 503 at once (its queues'
      // fail-fast connections would otherwise surface a bare ioredis error as a 500).
      if (path.startsWith(`${DASHBOARD_PATH}/api/`) && redis.status !== "ready") throw new QueueUnavailableError();
    })
    .get(
      "/metrics",
      async ({ request }) => {
        guard(request);
        return new Response(await renderMetrics(), { headers: { "content-type": metricsContentType, "cache-control": "no-store" } });
      },
      { detail: { hide: true } },
    );
  return queueDashboard ? app.use(queueDashboard) : app;
};

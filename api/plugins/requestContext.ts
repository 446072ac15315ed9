import { randomUUID } from "node:crypto";
import { Elysia } from "elysia";
import { enterLogContext } from "../../config/logContext.ts";
import type { Logger } from "../../config/logger.ts";
import { httpRequestDuration, statusClass } from "../../metrics/httpMetrics.ts";

/** An incoming `X-Request-Id` is kept when it is short, printable and safe to log; otherwise one is made. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

export const requestIdOf = (incoming: string | null): string =>
  incoming && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();

/** Elysia's `set.status` may be a number or a status name; the response, when the handler returned one, wins. */
function statusOf(set: { status?: number | string }, response: unknown): number {
  if (response instanceof Response) return response.status;
  return typeof set.status === "number" ? set.status : 200;
}

/**
 * Per request: an id (the caller's `X-Request-Id` if sane, else a new uuid) returned as
 * `X-Request-Id` and carried by every log line written while handling it; then one JSON
 * line `request` with method, route template, status and latency, and the latency
 * histogram by route template and status class.
 */
export const requestContextPlugin = (logger: Logger) => {
  const startedAt = new WeakMap<Request, { at: number; requestId: string }>();
  // The request line's fields are fixed and never secret: redaction (half the cost of a line) is skipped.
  const requestLog = logger.child({}, { redact: [] });
  return new Elysia({ name: "request-context" })
    .onRequest(({ request, set }) => {
      const requestId = requestIdOf(request.headers.get("x-request-id"));
      startedAt.set(request, { at: performance.now(), requestId });
      set.headers["x-request-id"] = requestId;
      enterLogContext({ requestId });
    })
    .onAfterResponse({ as: "global" }, (context) => {
      const { request, set, route } = context as typeof context & { route?: string; responseValue?: unknown };
      const start = startedAt.get(request);
      if (!start) return;
      const seconds = (performance.now() - start.at) / 1000;
      const status = statusOf(set, (context as { responseValue?: unknown }).responseValue);
      const template = route || "unmatched";
      httpRequestDuration.observe({ method: request.method, route: template, status_class: statusClass(status) }, seconds);
      requestLog.info(
        { requestId: start.requestId, method: request.method, route: template, status, latencyMs: Math.round(seconds * 10_000) / 10 },
        "request",
      );
    });
};

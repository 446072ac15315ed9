import { Elysia } from "elysia";
import { AppError, ServiceUnavailableError } from "../../domain/errors.ts";
import type { Logger } from "../../config/logger.ts";

export type ErrorBody = { success: false; error: string; message?: string; code?: string };

/**
 * SQLSTATEs that mean the database is (going) away or full: 57P01 admin shutdown (a fast
 * shutdown terminating sessions), 57P02 crash shutdown, 57P03 cannot connect now (shutting
 * down or starting up), 53300 too many connections, class 08 connection exceptions; and the
 * ones Postgres itself says to retry: 40P01 deadlock, 40001 serialization failure, 55P03
 * lock not available (a reconcile giving way to the indexer's start-up migration); and a
 * database that is not (yet) the one to write to or gave up on the statement: 25006 read-only
 * transaction (a connection still on the old primary, now a standby, after a failover), 57014
 * query cancelled (a statement timeout, an operator's cancel), 25P03 idle-in-transaction
 * timeout. Each rolled its transaction back whole.
 */
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300", "08000", "08001", "08003", "08004", "08006", "40P01", "40001", "55P03", "25006", "57014", "25P03"]);
/** Socket-level failures (Node/Bun errno names), and Bun SQL's own connection and pool errors. */
const UNAVAILABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "ERR_POSTGRES_IDLE_TIMEOUT", "ERR_POSTGRES_LIFETIME_TIMEOUT"]);

/**
 * Postgres/network failures that mean "try again", never a 500 (DESIGN.md: 57P01 et al.).
 * Bun's SQL client puts the SQLSTATE in `errno` (its `code` is ERR_POSTGRES_SERVER_ERROR),
 * and drizzle wraps it in a DrizzleQueryError's `cause`: the whole cause chain is looked at.
 */
function isUnavailable(error: unknown, depth = 0): boolean {
  if (error === null || typeof error !== "object" || depth > 5) return false;
  const e = error as { code?: unknown; errno?: unknown; cause?: unknown };
  const code = typeof e.code === "string" ? e.code : "";
  const errno = typeof e.errno === "string" ? e.errno : "";
  return (
    UNAVAILABLE_CODES.has(code) ||
    UNAVAILABLE_SQLSTATES.has(code) ||
    UNAVAILABLE_SQLSTATES.has(errno) ||
    code.startsWith("ERR_POSTGRES_CONNECTION") ||
    isUnavailable(e.cause, depth + 1)
  );
}

/** Turns Elysia's validation error into "which field, what is wrong". */
function describeValidation(error: unknown): { field: string; message: string } {
  const v = error as { type?: string; all?: Array<{ path?: string; summary?: string; message?: string }>; message?: string };
  const first = v.all?.[0];
  const path = (first?.path ?? "").replace(/^\//, "").replaceAll("/", ".");
  const where = v.type === "query" ? "query parameter" : v.type === "params" ? "path parameter" : v.type === "headers" ? "header" : "field";
  if (!path) return { field: v.type ?? "body", message: `Invalid request ${v.type ?? "body"}: ${first?.summary ?? first?.message ?? "malformed"}` };
  return { field: path, message: `Invalid ${where} '${path}': ${first?.summary ?? first?.message ?? "invalid value"}` };
}

/**
 * The one place errors become HTTP: AppError subclasses carry status and `error`;
 * validation, parse and routing errors get the same body; anything else is logged
 * and answered 500 (or 503 when a dependency dropped), never with internals.
 */
export const errorsPlugin = (logger: Logger) =>
  new Elysia({ name: "errors" }).onError({ as: "global" }, ({ code, error, set, request }) => {
    const body = (status: number, error: string, message?: string, extra: Partial<ErrorBody> = {}): ErrorBody => {
      set.status = status;
      return { success: false, error, ...(message ? { message } : {}), ...extra };
    };

    if (error instanceof AppError) {
      Object.assign(set.headers, error.headers);
      if (error.status >= 500 && !(error instanceof ServiceUnavailableError)) logger.warn({ err: error }, "request failed");
      return body(error.status, error.error, error.message, error.code ? { code: error.code } : {});
    }
    switch (code) {
      case "VALIDATION": {
        const { message } = describeValidation(error);
        return body(400, "invalid_request", message);
      }
      case "PARSE":
        return body(400, "invalid_request", "The request body is not valid JSON.");
      case "NOT_FOUND":
        return body(404, "not_found", `No route ${request.method} ${new URL(request.url).pathname}.`);
      case "INVALID_COOKIE_SIGNATURE":
        return body(400, "invalid_request", "Invalid cookie.");
    }
    if (isUnavailable(error)) {
      logger.warn({ err: error }, "dependency unavailable");
      return body(503, "service_unavailable", "A backing service is unavailable; retry shortly.");
    }
    logger.error({ err: error, path: new URL(request.url).pathname }, "unhandled error");
    return body(500, "internal_error", "An unexpected error occurred.");
  });

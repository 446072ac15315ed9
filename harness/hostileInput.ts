/**
 * What the hostile-input suites accept as an answer, and the routes they attack (read
 * from the app itself, so a new route is covered without touching the tests).
 */

/**
 * A 4xx; a 503 with the error body (a dependency, like an RPC that does not answer here,
 * is down); or the spec's 500 `payment_not_found` for an unknown payment on the three
 * status reads. Any other 5xx is a defect.
 */
export function allowedAnswer(routePath: string, status: number, body: any): boolean {
  if (status < 500) return true;
  if (status === 503) return body?.success === false;
  return status === 500 && body?.error === "payment_not_found" && /\/(payments\/status\/|payments\/[^/]+\/status|deposits\/status\/)/.test(routePath);
}

/**
 * The answer a generated request must get, when the request is known to be wrong: its
 * statuses (any other, a 2xx above all, fails the run) and why. Null: the request may be
 * right; any answer `allowedAnswer` takes will do.
 */
export type ExpectedAnswer = { statuses: readonly number[]; why: string } | null;

/** Whether an answer meets the general rule and the request's own expectation. */
export function meetsExpectation(expected: ExpectedAnswer, routePath: string, status: number, body: any): boolean {
  return allowedAnswer(routePath, status, body) && (expected === null || expected.statuses.includes(status));
}

/** The creates (each mount): payments, deposits, cross-chain and sandbox. */
export const CREATE_ROUTE = /^\/api(?:\/v1)?\/(?:payments\/create|deposits\/create|payments\/cross-chain\/create|sandbox\/payments)$/;
export const isCreateRoute = (method: string, routePath: string) => method === "POST" && CREATE_ROUTE.test(routePath);

/**
 * What a create answers a malformed body, by the credentials sent (`valid`: a key the
 * app knows, with its secret where one is needed; `live`: a live-mode one). Credentials
 * are checked first (401); a live key on the sandbox may be refused (403) before the body's
 * fault is found; otherwise a 400 naming the field.
 */
export function malformedCreateAnswer(
  routePath: string,
  credentials: { valid: boolean; live: boolean },
  why: string,
  /** An `Idempotency-Key` sent: one already used with another body is a 409 `idempotency_key_reused`, whatever this body holds. */
  idempotencyKey = false,
): ExpectedAnswer {
  if (!credentials.valid) return { statuses: [401], why: `${why}, without valid credentials` };
  const sandboxLive = credentials.live && routePath.endsWith("/sandbox/payments");
  return { statuses: [...(sandboxLive ? [400, 403] : [400]), ...(idempotencyKey ? [409] : [])], why };
}

/** The product API's routes (versioned and unversioned), without CORS preflights and wildcards. */
export const apiRoutes = (app: { routes: unknown }) =>
  (app.routes as Array<{ method: string; path: string }>).filter((r) => r.path.startsWith("/api/") && r.method !== "OPTIONS" && !r.path.includes("*"));

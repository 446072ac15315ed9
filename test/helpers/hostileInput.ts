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

/** The product API's routes (versioned and unversioned), without CORS preflights and wildcards. */
export const apiRoutes = (app: { routes: unknown }) =>
  (app.routes as Array<{ method: string; path: string }>).filter((r) => r.path.startsWith("/api/") && r.method !== "OPTIONS" && !r.path.includes("*"));

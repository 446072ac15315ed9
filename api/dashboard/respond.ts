import { checkoutHeaders } from "../checkout/securityHeaders.ts";

/**
 * A dashboard page: the checkout's Content-Security-Policy (the service's own scripts and
 * styles only, forms post only here, no framing), never cached (it holds account data).
 */
export function htmlPage(body: string, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(body, {
    status: init.status ?? 200,
    headers: { ...checkoutHeaders(), "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store", ...init.headers },
  });
}

/** After a form post: see the result with a GET (303), so a reload never posts twice. */
export const seeOther = (location: string, headers: Record<string, string> = {}) =>
  new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store", ...headers } });

/** A `next` the sign-in page may send the browser on to: a dashboard path of this service only. */
export const safeNext = (next: unknown): string =>
  typeof next === "string" && /^\/dashboard(?:[/?][^\\]*)?$/.test(next) && !next.startsWith("//") && !next.includes("//") ? next : "/dashboard/payments";

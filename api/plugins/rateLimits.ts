import { Elysia } from "elysia";
import type Redis from "ioredis";
import type { RateLimitsConfig } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import { createRateBudgets, type CredentialKind, type RateAction } from "../services/rateBudgets.ts";
import { authOf } from "./auth.ts";

// Creates of every kind, on both mounts: payments, deposits, cross-chain, sandbox.
const CREATE_PATH = /^\/api(?:\/v1)?\/(?:payments\/create|deposits\/create|payments\/cross-chain\/create|sandbox\/payments|x402\/settle)\/?$/;
// The product API and the checkout page; not the liveness probes, the bridges' signed webhooks,
// the checkout's static assets, nor the operators' routes (their own token).
const LIMITED_PATH = /^\/(?:api|pay)\//;
const EXEMPT_PATH = /^\/api\/(?:health|versions)\/?$|^\/api(?:\/v1)?\/webhooks\/|^\/pay\/assets\//;

/** The path of an absolute request URL, without parsing the whole URL (every request pays for this). */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

/** Whether a path is limited at all, and as what. Null: not limited. */
export function rateActionOf(method: string, pathname: string): RateAction | null {
  if (method === "OPTIONS" || !LIMITED_PATH.test(pathname) || EXEMPT_PATH.test(pathname)) return null;
  return method === "POST" && CREATE_PATH.test(pathname) ? "create" : "read";
}

/**
 * The client's IP: the connection's (Bun's `requestIP`), or, behind a proxy the operator
 * runs, the header it names (`x-forwarded-for`: its last entry, the one that proxy added;
 * anything before it the client wrote). Null when neither is known (`app.handle` in tests).
 */
export function clientIpOf(request: Request, server: { requestIP(request: Request): { address: string } | null } | null, header: string | null): string | null {
  if (header) {
    const value = request.headers.get(header);
    const last = value?.split(",").at(-1)?.trim();
    if (last) return last.slice(0, 64);
  }
  return server?.requestIP(request)?.address ?? null;
}

/**
 * Rate limits (`createRateBudgets`), per client IP and per credential, each with a budget for
 * creates and one for everything else. Over budget: 429 with `Retry-After` and the IETF
 * draft's `RateLimit-Policy` and `RateLimit` headers, in the error body.
 *
 * The address is charged first, before anything is parsed (a flood of bad keys costs no
 * lookups), in the bucket of the credential kind its headers carry; the credential once the
 * auth plugin has proved it. Public keys, API keys and credential-free calls have separate
 * buckets, so a flood on the public key never spends the merchant's key + secret budget, not
 * even from the same address.
 */
export const rateLimitsPlugin = (deps: { config: { rateLimits: RateLimitsConfig; redis: { prefix: string; timeoutMs: number } }; redis: Redis; logger: Logger }) => {
  const limits = deps.config.rateLimits;
  if (!limits.enabled) return new Elysia({ name: "rate-limits" });
  const budgets = createRateBudgets(deps);
  return new Elysia({ name: "rate-limits" })
    .onRequest(({ request, server }) => {
      const action = rateActionOf(request.method, pathOf(request.url));
      if (!action) return;
      const ip = clientIpOf(request, server, limits.clientIpHeader);
      if (ip === null) return;
      const h = request.headers;
      const kind: CredentialKind = h.get("x-public-key")?.trim() ? "public_key" : h.get("x-api-key")?.trim() ? "api_key" : "none";
      return budgets.spend(kind, "ip", action, ip);
    })
    .onBeforeHandle({ as: "global" }, ({ request }) => {
      const auth = authOf(request);
      const action = auth && rateActionOf(request.method, pathOf(request.url));
      if (action) return budgets.spend(auth.scheme, "credential", action, auth.credentialId);
    });
};

import { Elysia } from "elysia";
import type Redis from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, RLWrapperTimeouts, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { RateBudget, RateLimitsConfig } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import { RateLimitedError } from "../../domain/errors.ts";
import { authOf } from "./auth.ts";

/** What a request spends: a create (an address to watch for days) or anything else. */
export type RateAction = "create" | "read";
/** Which credential a request carries (by its headers before auth; by what it proved after). */
type CredentialKind = "public_key" | "api_key" | "none";

// Creates of every kind, on both mounts: payments, deposits, cross-chain, sandbox.
const CREATE_PATH = /^\/api(?:\/v1)?\/(?:payments\/create|deposits\/create|payments\/cross-chain\/create|sandbox\/payments)\/?$/;
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

type Bucket = { name: string; limit: number; what: string; limiter: RateLimiterAbstract };

/**
 * Rate limits, per credential and per client IP, each with its own budget for creates and
 * for everything else (`RateLimitsConfig`), counted in fixed windows in Redis
 * (rate-limiter-flexible). A key over its budget is then refused from this process's memory
 * until its window ends (no Redis call per refused request). With Redis down, unready or
 * slower than 200 ms, each process counts in its own memory (`insuranceLimiter`): creates
 * still answer. Over budget: 429 with `Retry-After` and the IETF draft's `RateLimit-Policy`
 * and `RateLimit` headers, in the error body.
 *
 * The IP is checked first, before anything is parsed (a flood of bad keys costs no lookups);
 * the credential once the auth plugin has proved it. Public keys, API keys and credential-free
 * calls have separate buckets, so a flood on the public key never spends the merchant's key +
 * secret budget, not even from the same address.
 */
export const rateLimitsPlugin = (deps: { config: { rateLimits: RateLimitsConfig; redis: { prefix: string; timeoutMs: number } }; redis: Redis; logger: Logger }) => {
  const { rateLimits: limits, redis: redisConfig } = deps.config;
  if (!limits.enabled) return new Elysia({ name: "rate-limits" });
  const timeoutMs = Math.min(redisConfig.timeoutMs, 200);
  const buckets = new Map<string, Bucket>();
  const bucket = (name: string, limit: number, what: string): Bucket => {
    const existing = buckets.get(name);
    if (existing) return existing;
    const options = { points: limit, duration: limits.windowSeconds, keyPrefix: `${redisConfig.prefix}:ratelimit:${name}` };
    const memory = new RateLimiterMemory(options);
    const store = new RateLimiterRedis({ ...options, storeClient: deps.redis, rejectIfRedisNotReady: true, inMemoryBlockOnConsumed: limit + 1, insuranceLimiter: memory });
    const created = { name, limit, what, limiter: new RLWrapperTimeouts({ limiter: store, timeoutMs, insuranceLimiter: memory }) };
    buckets.set(name, created);
    return created;
  };
  const budgetOf = (kind: CredentialKind, scope: "credential" | "ip"): RateBudget =>
    kind === "api_key" ? limits.apiKey : scope === "ip" ? limits.ip : limits.publicKey;
  const named = { public_key: "public-key", api_key: "api-key", none: "anonymous" } as const;

  async function spend(kind: CredentialKind, scope: "credential" | "ip", action: RateAction, key: string) {
    const budget = budgetOf(kind, scope);
    const name = scope === "ip" ? `ip-${named[kind]}-${action}s` : `${named[kind]}-${action}s`;
    const what = `${action === "create" ? "creates" : "requests"} ${scope === "ip" ? "from this address" : `with this ${kind === "api_key" ? "API key" : "public key"}`}`;
    const b = bucket(name, action === "create" ? budget.creates : budget.reads, what);
    try {
      await b.limiter.consume(key);
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes) {
        throw new RateLimitedError(b.name, b.limit, limits.windowSeconds, Math.max(1, Math.ceil(refusal.msBeforeNext / 1000)), b.what);
      }
      // Neither Redis nor memory answered (never expected): the request is not held up by it.
      deps.logger.warn({ err: refusal, bucket: b.name }, "rate limit check failed; request let through");
    }
  }

  return new Elysia({ name: "rate-limits" })
    .onRequest(async ({ request, server }) => {
      const action = rateActionOf(request.method, pathOf(request.url));
      if (!action) return;
      const ip = clientIpOf(request, server, limits.clientIpHeader);
      if (ip === null) return;
      const h = request.headers;
      const kind: CredentialKind = h.get("x-public-key")?.trim() ? "public_key" : h.get("x-api-key")?.trim() ? "api_key" : "none";
      await spend(kind, "ip", action, ip);
    })
    .onBeforeHandle({ as: "global" }, async ({ request }) => {
      const auth = authOf(request);
      if (!auth) return;
      const action = rateActionOf(request.method, pathOf(request.url));
      if (action) await spend(auth.scheme, "credential", action, auth.credentialId);
    });
};

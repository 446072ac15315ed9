import type Redis from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, RLWrapperTimeouts, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { RateBudget, RateLimitsConfig } from "../../config/index.ts";
import type { Logger } from "../../config/logger.ts";
import { RateLimitedError } from "../../domain/errors.ts";

/** What a request spends: a create (an address to watch for days) or anything else. */
export type RateAction = "create" | "read";
/** Which credential a request carries (by its headers before auth; by what it proved after). */
export type CredentialKind = "public_key" | "api_key" | "none";
/** Whose budget: the credential's, or the client address's (per credential kind). */
export type RateScope = "credential" | "ip";

/** What Redis last said of a key (reads only): points left, when its window ends, and what was let through since but not yet sent. */
type Seen = { remaining: number; resetAt: number; unsent: number };

type Bucket = {
  name: string;
  limit: number;
  what: string;
  limiter: RateLimiterAbstract;
  /** Reads only; null for creates, which are always counted before they go on. */
  seen: Map<string, Seen> | null;
  /** A read is let through at once while more than this is left of its key's budget. */
  headroom: number;
  /** Keys with reads let through and not yet sent; sent together every FLUSH_MS. */
  unsent: Set<string>;
  flushing: ReturnType<typeof setTimeout> | null;
};

/** How often reads let through are sent to Redis, added up per key. */
const FLUSH_MS = 100;
/** Keys a bucket remembers Redis's answer for; past it the memory starts over (each key then waits once). */
const MAX_SEEN_KEYS = 50_000;

/**
 * The request budgets (`RateLimitsConfig`), counted in fixed windows in Redis by
 * rate-limiter-flexible: per credential and per client address, creates apart from
 * everything else. A key over its budget is then refused from this process's memory until
 * its window ends (no Redis call per refused request). With Redis down, not ready or slower
 * than 200 ms, each process counts in its own memory (`insuranceLimiter`).
 *
 * Creates wait for their count: exact. A read whose key had, at Redis's last answer, more
 * than a tenth of its budget left goes on at once; its point is sent with the key's others
 * every 100 ms (one Redis call per busy key, not per request: a call per status read cost
 * more CPU than the read). Near the limit, or unknown, a read waits for its count too.
 */
export function createRateBudgets(deps: { config: { rateLimits: RateLimitsConfig; redis: { prefix: string; timeoutMs: number } }; redis: Redis; logger: Logger }) {
  const { rateLimits: limits, redis: redisConfig } = deps.config;
  const timeoutMs = Math.min(redisConfig.timeoutMs, 200);
  const named = { public_key: "public-key", api_key: "api-key", none: "anonymous" } as const;
  const budgetOf = (kind: CredentialKind, scope: RateScope): RateBudget => (kind === "api_key" ? limits.apiKey : scope === "ip" ? limits.ip : limits.publicKey);

  function bucketFor(kind: CredentialKind, scope: RateScope, action: RateAction): Bucket {
    const budget = budgetOf(kind, scope);
    const limit = action === "create" ? budget.creates : budget.reads;
    const name = scope === "ip" ? `ip-${named[kind]}-${action}s` : `${named[kind]}-${action}s`;
    const options = { points: limit, duration: limits.windowSeconds, keyPrefix: `${redisConfig.prefix}:ratelimit:${name}` };
    const memory = new RateLimiterMemory(options);
    const store = new RateLimiterRedis({ ...options, storeClient: deps.redis, rejectIfRedisNotReady: true, inMemoryBlockOnConsumed: limit + 1, insuranceLimiter: memory });
    return {
      name,
      limit,
      what: `${action === "create" ? "creates" : "requests"} ${scope === "ip" ? "from this address" : `with this ${kind === "api_key" ? "API key" : "public key"}`}`,
      limiter: new RLWrapperTimeouts({ limiter: store, timeoutMs, insuranceLimiter: memory }),
      seen: action === "read" ? new Map() : null,
      headroom: Math.max(10, Math.ceil(limit / 10)),
      unsent: new Set(),
      flushing: null,
    };
  }
  // Looked up by three small keys on every request, each bucket built once.
  const buckets: Record<RateScope, Record<CredentialKind, Partial<Record<RateAction, Bucket>>>> = {
    credential: { public_key: {}, api_key: {}, none: {} },
    ip: { public_key: {}, api_key: {}, none: {} },
  };

  /** Keeps Redis's answer for a key, less what was let through since and not sent yet; returns what is left. */
  function remember(b: Bucket, key: string, answer: RateLimiterRes): number {
    if (!b.seen) return answer.remainingPoints;
    const unsent = b.seen.get(key)?.unsent ?? 0;
    if (b.seen.size >= MAX_SEEN_KEYS && !b.seen.has(key)) b.seen.clear();
    const remaining = answer.remainingPoints - unsent;
    b.seen.set(key, { remaining, resetAt: Date.now() + answer.msBeforeNext, unsent });
    return remaining;
  }
  const refusal = (b: Bucket, answer: RateLimiterRes) =>
    RateLimitedError.ofBucket(b.name, b.limit, limits.windowSeconds, Math.max(1, Math.ceil(answer.msBeforeNext / 1000)), b.what);

  function flush(b: Bucket) {
    b.flushing = null;
    for (const key of b.unsent) {
      const seen = b.seen?.get(key);
      const points = seen?.unsent ?? 0;
      if (!seen || points === 0) continue;
      seen.unsent = 0;
      b.limiter.consume(key, points).then(
        (answer) => remember(b, key, answer),
        (refusal) => refusal instanceof RateLimiterRes && remember(b, key, refusal),
      );
    }
    b.unsent.clear();
  }

  return {
    /**
     * Spends one request of `key` from its budget: undefined when it may go on at once, else a
     * promise that settles when it may, or rejects with a RateLimitedError (429).
     */
    spend(kind: CredentialKind, scope: RateScope, action: RateAction, key: string): Promise<void> | undefined {
      const b = (buckets[scope][kind][action] ??= bucketFor(kind, scope, action));
      const seen = b.seen?.get(key);
      if (seen && seen.remaining > b.headroom && Date.now() < seen.resetAt) {
        seen.remaining--;
        seen.unsent++;
        b.unsent.add(key);
        if (!b.flushing) {
          b.flushing = setTimeout(() => flush(b), FLUSH_MS);
          b.flushing.unref?.();
        }
        return undefined;
      }
      return b.limiter.consume(key).then(
        (answer) => {
          // Redis has not counted the reads let through since (`unsent`): with them, this one may be over.
          if (remember(b, key, answer) < 0) throw refusal(b, answer);
        },
        (refused: unknown) => {
          if (refused instanceof RateLimiterRes) {
            remember(b, key, refused);
            throw refusal(b, refused);
          }
          // Neither Redis nor memory answered (never expected): the request is not held up by it.
          deps.logger.warn({ err: refused, bucket: b.name }, "rate limit check failed; request let through");
        },
      );
    },
  };
}

export type RateBudgets = ReturnType<typeof createRateBudgets>;

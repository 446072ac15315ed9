import type Redis from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";

/**
 * Failed sign-ins, counted per e-mail and per client address in Redis (rate-limiter-flexible,
 * as the API's budgets, with an in-memory insurance limiter when Redis is away). Past the
 * limit the e-mail (or address) is locked out for the window: a password cannot be guessed
 * faster than `attempts` per window. E-mails are counted whether or not they exist, so a
 * lockout says nothing about who has an account.
 */
export function createSignInThrottle(deps: { redis: Redis; prefix: string; attempts: number; lockoutSeconds: number }) {
  const limiter = (name: string, points: number) => {
    const options = { points, duration: deps.lockoutSeconds, blockDuration: deps.lockoutSeconds, keyPrefix: `${deps.prefix}:dashboard-signin-${name}` };
    return new RateLimiterRedis({ ...options, storeClient: deps.redis, rejectIfRedisNotReady: true, insuranceLimiter: new RateLimiterMemory(options) });
  };
  const byEmail = limiter("email", deps.attempts);
  // An address tries several e-mails (an office behind one NAT): a looser limit, still a ceiling.
  const byAddress = limiter("ip", deps.attempts * 4);

  const blockedFor = async (l: RateLimiterRedis, key: string): Promise<number> => {
    const seen = await l.get(key).catch(() => null);
    return seen && seen.consumedPoints >= l.points ? Math.max(1, Math.ceil(seen.msBeforeNext / 1000)) : 0;
  };
  const spend = (l: RateLimiterRedis, key: string) => l.consume(key).catch((r) => (r instanceof RateLimiterRes ? r : null));

  return {
    /** Seconds until this e-mail or address may try again; 0: it may now. */
    async lockedFor(email: string, ip: string | null): Promise<number> {
      const [e, a] = await Promise.all([blockedFor(byEmail, email), ip ? blockedFor(byAddress, ip) : 0]);
      return Math.max(e, a);
    },
    async failed(email: string, ip: string | null): Promise<void> {
      await Promise.all([spend(byEmail, email), ip ? spend(byAddress, ip) : null]);
    },
    /** A success forgets the e-mail's failures (not the address's). */
    async succeeded(email: string): Promise<void> {
      await byEmail.delete(email).catch(() => false);
    },
  };
}

export type SignInThrottle = ReturnType<typeof createSignInThrottle>;

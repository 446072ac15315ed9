import { randomBytes } from "node:crypto";
import Redis from "ioredis";

export const testRedisUrl = () => process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** A Redis connection and a random key prefix for one test file; `cleanup` deletes its keys. */
export function createTestRedis(url = testRedisUrl()) {
  const prefix = `test_${randomBytes(5).toString("hex")}`;
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: false });
  // A test's private Redis may be down (fault tests): its errors are the point, not noise.
  redis.on("error", () => {});
  return {
    redis,
    prefix,
    url,
    cleanup: async () => {
      try {
        const keys = await redis.keys(`${prefix}:*`);
        if (keys.length) await redis.del(...keys);
      } catch {}
      redis.disconnect();
    },
  };
}

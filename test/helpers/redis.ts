import { randomBytes } from "node:crypto";
import Redis from "ioredis";

export const testRedisUrl = () => process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** A Redis connection and a random key prefix for one test file; `cleanup` deletes its keys. */
export function createTestRedis() {
  const prefix = `test_${randomBytes(5).toString("hex")}`;
  const redis = new Redis(testRedisUrl(), { maxRetriesPerRequest: 1, lazyConnect: false });
  return {
    redis,
    prefix,
    url: testRedisUrl(),
    cleanup: async () => {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    },
  };
}

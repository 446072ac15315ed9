import { spawn, spawnSync } from "node:child_process";
import Redis from "ioredis";

async function answers(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_500 });
  client.on("error", () => {});
  try {
    await client.connect();
    return (await client.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * Redis at `url` if it answers; otherwise a private `redis-server` from PATH on
 * `fallbackPort` (nothing persisted). Redis has no embedded form, so with neither
 * the start stops with one line saying how to install it.
 */
export async function ensureRedis(url: string, fallbackPort: number): Promise<{ url: string; stop: () => void }> {
  if (await answers(url)) return { url, stop: () => {} };
  if (spawnSync("redis-server", ["--version"]).status !== 0) {
    throw new Error(`Redis is not reachable at ${url} and redis-server is not installed: install Redis (e.g. 'apt-get install redis-server' or 'brew install redis') or set REDIS_URL.`);
  }
  const child = spawn("redis-server", ["--port", String(fallbackPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  const privateUrl = `redis://127.0.0.1:${fallbackPort}`;
  for (let i = 0; i < 50; i++) {
    if (await answers(privateUrl)) return { url: privateUrl, stop: () => child.kill("SIGTERM") };
    await Bun.sleep(100);
  }
  child.kill("SIGKILL");
  throw new Error(`redis-server did not start on port ${fallbackPort}`);
}

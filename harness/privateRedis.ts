import type { Subprocess } from "bun";
import Redis from "ioredis";
import { freePort } from "@stablepay/devchain/freePort";

/**
 * A redis-server of a test's own on a free port (never the machine's shared one), which
 * the test may SIGKILL and start again on the same port. No persistence: a restart comes
 * back empty, as a flushed or replaced Redis would.
 */
export type PrivateRedis = {
  url: string;
  port: number;
  kill: () => Promise<void>;
  start: () => Promise<void>;
  stop: () => Promise<void>;
  running: () => boolean;
};

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: Subprocess | null = null;
  const start = async () => {
    child = Bun.spawn(["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdout: "ignore", stderr: "ignore" });
    const deadline = Date.now() + 10_000;
    for (;;) {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
      probe.on("error", () => {});
      try {
        await probe.connect();
        await probe.ping();
        probe.disconnect();
        return;
      } catch (error) {
        probe.disconnect();
        if (Date.now() > deadline) throw new Error(`redis-server on ${port} did not start: ${String(error)}`);
        await Bun.sleep(50);
      }
    }
  };
  const kill = async () => {
    const c = child;
    child = null;
    if (!c) return;
    c.kill("SIGKILL");
    await c.exited;
  };
  await start();
  process.once("exit", () => (child as Subprocess | null)?.kill("SIGKILL"));
  return { url, port, start, kill, stop: kill, running: () => child !== null };
}

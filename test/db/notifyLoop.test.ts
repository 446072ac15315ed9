import { expect, test } from "bun:test";
import { createLogger } from "../../config/logger.ts";
import { startNotifyLoop } from "../../db/notifyLoop.ts";
import { startSilentProxy } from "../../harness/silentProxy.ts";

/** The NOTIFY loop's listening connection against the real Postgres, through a proxy that can go silent. */
const logger = createLogger({ level: "silent" });

// BUG: a listening connection a partition silenced raised no error: the loop believed it was
// listening, and heard nothing until the process restarted (every wake-up waited for a tick).
test("a listening connection that stops answering is dropped and opened again", async () => {
  const url = new URL(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test");
  const proxy = await startSilentProxy({ host: url.hostname, port: Number(url.port || 5432) });
  const loop = startNotifyLoop({ name: "test", channel: "notify_loop_probe", databaseUrl: proxy.via(url.toString()), intervalMs: 200, logger, run: async () => {} });
  try {
    await loop.ready;
    expect(loop.listening()).toBe(true);
    proxy.silence();
    const deadline = Date.now() + 8_000; // the probe's deadline is 5 s
    while (loop.listening() && Date.now() < deadline) await Bun.sleep(50);
    expect(loop.listening()).toBe(false);
    proxy.speak();
    const back = Date.now() + 10_000; // the reconnect begun while silent gives up after its connect timeout (5 s)
    while (!loop.listening() && Date.now() < back) await Bun.sleep(100);
    expect(loop.listening()).toBe(true);
  } finally {
    await loop.stop();
    await proxy.stop();
  }
}, 30_000);

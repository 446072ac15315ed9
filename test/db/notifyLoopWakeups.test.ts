import { expect, test } from "bun:test";
import { createLogger } from "../../config/logger.ts";
import { startNotifyLoop } from "../../db/notifyLoop.ts";

const logger = createLogger({ level: "silent" });

/** A loop without a database (wake-ups only), whose run takes `runMs` and records when it started. */
function loopWith(runMs: number, minSpacingMs?: number) {
  const starts: number[] = [];
  const loop = startNotifyLoop({
    name: "test",
    channel: "test",
    databaseUrl: undefined,
    intervalMs: 60_000,
    logger,
    minSpacingMs,
    run: async () => {
      starts.push(performance.now());
      await Bun.sleep(runMs);
    },
  });
  return { loop, starts };
}

test("wake-ups during a run coalesce into exactly one more run", async () => {
  const { loop, starts } = loopWith(50);
  await loop.ready;
  starts.length = 0;
  const first = loop.wake();
  await Bun.sleep(10);
  for (let i = 0; i < 5; i++) void loop.wake();
  await first;
  expect(starts.length).toBe(2);
  await loop.stop();
});

test("minSpacingMs: a back-to-back run waits until that long after the last one started; a lone wake-up runs at once", async () => {
  const { loop, starts } = loopWith(10, 200);
  await loop.ready;
  starts.length = 0;
  const woken = performance.now();
  const first = loop.wake();
  await Bun.sleep(5);
  void loop.wake();
  await first;
  expect(starts.length).toBe(2);
  expect(starts[0]! - woken).toBeLessThan(50);
  expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(195);
  await loop.stop();
});

test("stopping during the spacing wait ends the loop without another run", async () => {
  const { loop, starts } = loopWith(10, 300);
  await loop.ready;
  starts.length = 0;
  void loop.wake();
  await Bun.sleep(5);
  void loop.wake();
  await Bun.sleep(50);
  await loop.stop();
  expect(starts.length).toBe(1);
});

// BUG: each tick started another connect while one hung (a partition, a slow failover): when the
// network came back every one of them connected and LISTENed, and all but the last stayed open.
test("a connect that hangs is tried once at a time, whatever the ticks, and gives up in time", async () => {
  const sockets = new Set<unknown>();
  let accepted = 0;
  // Accepts connections and never answers: Postgres behind a partition.
  const silent = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: (socket) => void (accepted++, sockets.add(socket)),
      close: (socket) => void sockets.delete(socket),
      data: () => {},
    },
  });
  const loop = startNotifyLoop({
    name: "test",
    channel: "test",
    databaseUrl: `postgres://user@127.0.0.1:${silent.port}/db`,
    intervalMs: 50,
    logger,
    run: async () => {},
  });
  try {
    await Bun.sleep(600);
    expect(accepted).toBe(1); // twelve ticks, one connection
    expect(loop.listening()).toBe(false);
    await Bun.sleep(5_000); // the connect timeout (5 s at least): given up, closed, and tried again
    expect(accepted).toBe(2);
    expect(sockets.size).toBe(1);
  } finally {
    await loop.stop();
    silent.stop(true);
  }
}, 20_000);

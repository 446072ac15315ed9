import { expect, test } from "bun:test";
import { resolve } from "node:path";

// BUG: SIGHUP (the terminal closing) was left to its default: `npm start` died without stopping
// what it had started, and its embedded Postgres ran on, holding the data directory.
test.each(["SIGHUP", "SIGTERM", "SIGINT"] as const)("%s runs the shutdown once and exits 0", async (signal) => {
  const script = `
    import { onShutdown } from ${JSON.stringify(resolve(import.meta.dir, "../../../scripts/lib/onShutdown.ts"))};
    onShutdown(async () => { console.log("stopped"); }, () => {});
    console.log("ready");
    setInterval(() => {}, 1_000);
  `;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  const reader = child.stdout.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  expect(first).toContain("ready");
  child.kill(signal);
  let rest = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    rest += new TextDecoder().decode(value);
  }
  expect(await child.exited).toBe(0);
  expect(rest.trim()).toBe("stopped");
});

import { expect, test } from "bun:test";
import { spawn } from "bun";

const LOGGER = new URL("../../config/logger.ts", import.meta.url).pathname;

/** Runs `body` in a fresh Bun process with `log`, a logger on the process's stdout; its stdout lines as they arrive. */
function logProcess(body: string) {
  const script = `const { createLogger } = await import(${JSON.stringify(LOGGER)});
const log = createLogger({ level: "info", name: "t" });
${body}`;
  const child = spawn(["bun", "-e", script], { stdout: "pipe", stderr: "pipe" });
  const lines: Array<{ msg: string; n?: number; at: number }> = [];
  const read = (async () => {
    const decoder = new TextDecoder();
    let rest = "";
    const reader = child.stdout.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      rest += decoder.decode(chunk.value, { stream: true });
      const parts = rest.split("\n");
      rest = parts.pop()!;
      for (const p of parts) lines.push({ ...(JSON.parse(p) as { msg: string; n?: number }), at: performance.now() });
    }
  })();
  return { child, lines, done: async () => (await child.exited, await read, lines) };
}

test("a line is written by the end of the turn that logged it, not when the process ends", async () => {
  const run = logProcess(`log.info("first"); await Bun.sleep(1500); log.info("last");`);
  const started = performance.now();
  while (run.lines.length === 0 && performance.now() - started < 1200) await Bun.sleep(10);
  expect(run.lines.map((l) => l.msg)).toEqual(["first"]);
  expect((await run.done()).map((l) => l.msg)).toEqual(["first", "last"]);
});

test("every line logged in one turn is out, in order, when the process exits at once or on an uncaught exception", async () => {
  for (const end of ["process.exit(3)", "throw new Error('boom')"]) {
    const run = logProcess(`for (let n = 0; n < 5000; n++) log.info({ n }, "line"); log.error("bye"); ${end};`);
    const lines = await run.done();
    expect(lines.length).toBe(5001);
    expect(lines.slice(0, 5000).every((l, i) => l.n === i)).toBe(true);
    expect(lines.at(-1)!.msg).toBe("bye");
    expect(run.child.exitCode).not.toBe(0);
  }
});

test("a fatal line is written at once: it is out even when the process is then SIGKILLed", async () => {
  const run = logProcess(`log.info("before"); log.fatal("dying"); process.kill(process.pid, "SIGKILL");`);
  expect((await run.done()).map((l) => l.msg)).toEqual(["before", "dying"]);
  expect(run.child.signalCode).toBe("SIGKILL");
});

test("two loggers of one process share the stream: their lines keep the order they were logged in", async () => {
  const run = logProcess(`const other = createLogger({ level: "info", name: "u" });
for (let n = 0; n < 100; n++) (n % 2 ? other : log).info({ n }, "line");`);
  const lines = await run.done();
  expect(lines.map((l) => l.n)).toEqual(Array.from({ length: 100 }, (_, i) => i));
});

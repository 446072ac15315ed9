import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";

export type Child = { name: string; process: ChildProcess; exited: Promise<number | null> };

/** Spawns a role with its output prefixed by its name, so one terminal shows every role. */
export function spawnRole(name: string, command: string, args: string[], env: Record<string, string | undefined>, cwd: string): Child {
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
  for (const stream of [child.stdout!, child.stderr!]) {
    createInterface({ input: stream }).on("line", (line) => process.stdout.write(`[${name}] ${line}\n`));
  }
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { name, process: child, exited };
}

/** SIGTERM every child, then SIGKILL whatever is still running after `graceMs`. */
export async function stopChildren(children: Child[], graceMs = 10_000): Promise<void> {
  for (const c of children) if (c.process.exitCode === null) c.process.kill("SIGTERM");
  const timer = setTimeout(() => children.forEach((c) => c.process.exitCode === null && c.process.kill("SIGKILL")), graceMs);
  await Promise.all(children.map((c) => c.exited));
  clearTimeout(timer);
}

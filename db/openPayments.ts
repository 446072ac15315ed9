import { sql } from "drizzle-orm";
import type { Mode } from "../domain/mode.ts";
import { queryRows, type Db } from "./client.ts";

/**
 * How many payments of this merchant and mode are open (pending), counted up to `atMost`
 * (by the partial index `payments_merchant_pending_idx`: never more rows than the cap).
 */
export async function countOpenPayments(db: Db, merchantId: string, mode: Mode, atMost: number): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from (select 1 from payments where merchant_id = ${merchantId} and mode = ${mode} and status = 'pending' limit ${atMost}) open`,
  );
  return row?.n ?? 0;
}

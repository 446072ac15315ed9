import { sql } from "drizzle-orm";
import type { Db } from "./client.ts";

/**
 * Postgres channel announcing that payments changed in a way a customer may see
 * (settlement, closing, refunds). The payload is their ids, comma-separated. The API's
 * checkout streams listen to it; the NOTIFY is sent in the writing transaction, so it
 * arrives only once the change is committed (and never for a rolled-back one).
 */
export const PAYMENT_CHANGES_CHANNEL = "stablepay_payment_changes";

/** A NOTIFY payload must stay under 8000 bytes: 200 ids of 36 characters and their commas fit with room to spare. */
const IDS_PER_NOTIFICATION = 200;

/** Ids as NOTIFY payloads: each a comma-separated list of at most 200 ids (under 7,400 bytes). */
export function changePayloads(ids: readonly string[]): string[] {
  const unique = [...new Set(ids)];
  const payloads: string[] = [];
  for (let i = 0; i < unique.length; i += IDS_PER_NOTIFICATION) payloads.push(unique.slice(i, i + IDS_PER_NOTIFICATION).join(","));
  return payloads;
}

/** The payment ids of one notification's payload (anything that is not an id is dropped). */
export const changedIds = (payload: string): string[] => payload.split(",").filter((id) => id.length === 36);

/**
 * Announces changed payments with `tx`, which must be the transaction making the
 * change: one statement for the whole batch, whatever its size (a busy reconcile run
 * changes thousands of payments a second).
 */
export async function announcePaymentChanges(tx: Db, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.execute(sql`select pg_notify(${PAYMENT_CHANGES_CHANNEL}, payload) from unnest(${sql.param(changePayloads(ids))}::text[]) as payload`);
}

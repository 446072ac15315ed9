import { and, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { Mode } from "../domain/mode.ts";
import type { X402SettlementStatus } from "../domain/x402.ts";
import type { Db } from "./client.ts";
import { payments, x402Settlements, type PaymentRow, type X402SettlementRow } from "./schema/index.ts";

export type { X402SettlementRow };
export type NewX402Settlement = typeof x402Settlements.$inferInsert;

export async function findX402Settlement(db: Db, id: string): Promise<X402SettlementRow | undefined> {
  const [row] = await db.select().from(x402Settlements).where(eq(x402Settlements.id, id));
  return row;
}

/** The settlement with its payment, in one read (the worker's: it needs both to settle). */
export async function findX402SettlementWithPayment(db: Db, id: string): Promise<{ row: X402SettlementRow; payment: PaymentRow | null } | undefined> {
  const [found] = await db.select({ row: x402Settlements, payment: payments }).from(x402Settlements).leftJoin(payments, eq(payments.id, x402Settlements.paymentId)).where(eq(x402Settlements.id, id));
  return found;
}

/**
 * The settlement already asked for this authorization (any merchant: an authorization settles
 * once, whoever asks) or, for this merchant, under this payment identifier.
 */
export async function findExistingX402Settlement(
  db: Db,
  key: { chainId: string; asset: string; payer: string; nonce: string; merchantId: string; mode: Mode; paymentIdentifier: string | null },
): Promise<X402SettlementRow | undefined> {
  const byAuthorization = sql`(${x402Settlements.chainId} = ${key.chainId} and lower(${x402Settlements.asset}) = ${key.asset.toLowerCase()}
    and lower(${x402Settlements.payer}) = ${key.payer.toLowerCase()} and ${x402Settlements.nonce} = ${key.nonce})`;
  const byIdentifier = key.paymentIdentifier
    ? sql`(${x402Settlements.merchantId} = ${key.merchantId} and ${x402Settlements.mode} = ${key.mode} and ${x402Settlements.paymentIdentifier} = ${key.paymentIdentifier})`
    : sql`false`;
  const [row] = await db.select().from(x402Settlements).where(sql`${byAuthorization} or ${byIdentifier}`).limit(1);
  return row;
}

/** Inserts the settlement unless its authorization (or payment identifier) is taken: undefined then. */
export async function insertX402Settlement(tx: Db, values: NewX402Settlement): Promise<X402SettlementRow | undefined> {
  const [row] = await tx.insert(x402Settlements).values(values).onConflictDoNothing().returning();
  return row;
}

/**
 * Postgres channel on which a settlement's outcome (settled or failed) is announced when it is
 * written, by a trigger (migration 0050), so on commit and with no round trip of the writer's:
 * a settle waiting for it (the API's) answers at once. The payload is `X402Outcome` as JSON.
 */
export const X402_SETTLEMENTS_CHANNEL = "stablepay_x402_settlements";

/** A settlement's outcome as announced: what a settle answers with. */
export type X402Outcome = { id: string; status: "settled" | "failed"; txHash: string | null; errorReason: string | null };

/** The outcome a notification's payload announces, or null when it is not one. */
export function announcedOutcome(payload: string): X402Outcome | null {
  try {
    const value = JSON.parse(payload) as Partial<X402Outcome> | null;
    if (typeof value?.id !== "string" || (value.status !== "settled" && value.status !== "failed")) return null;
    return { id: value.id, status: value.status, txHash: typeof value.txHash === "string" ? value.txHash : null, errorReason: typeof value.errorReason === "string" ? value.errorReason : null };
  } catch {
    return null;
  }
}

/** Records what the worker learned (an outcome is announced); a settled or failed row is final and is never written again. */
export async function updateX402Settlement(
  db: Db,
  id: string,
  values: { status: X402SettlementStatus; txHash?: string | null; blockNumber?: bigint; blockTimestamp?: Date; logIndex?: number; credited?: bigint; gasCost?: bigint | null; errorReason?: string | null },
): Promise<X402SettlementRow | undefined> {
  const [row] = await db
    .update(x402Settlements)
    .set({ ...values, updatedAt: sql`now()` })
    .where(and(eq(x402Settlements.id, id), inArray(x402Settlements.status, ["requested", "submitted"])))
    .returning();
  return row;
}

/** The settled authorizations of these payments: their evidence (what each settlement credited the merchant's wallet). */
export async function settledX402Of(db: Db, paymentIds: readonly string[]): Promise<X402SettlementRow[]> {
  if (paymentIds.length === 0) return [];
  return db
    .select()
    .from(x402Settlements)
    .where(and(inArray(x402Settlements.paymentId, [...paymentIds]), eq(x402Settlements.status, "settled")));
}

/** What the operator's fees for this merchant's settlements on the chain have cost since `since` (the chain's smallest native unit). */
export async function x402GasSpentSince(db: Db, merchantId: string, chainId: string, since: Date): Promise<bigint> {
  const [row] = await db
    .select({ total: sql<string>`coalesce(sum(${x402Settlements.gasCost}), 0)::text` })
    .from(x402Settlements)
    .where(and(eq(x402Settlements.merchantId, merchantId), eq(x402Settlements.chainId, chainId), gte(x402Settlements.createdAt, since)));
  return BigInt(row?.total ?? "0");
}

/** Settlements not yet settled or failed, asked for before `before`: the recheck prompts them again (a lost prompt, a crashed worker). */
export async function unfinishedX402Settlements(db: Db, before: Date): Promise<string[]> {
  const rows = await db
    .select({ id: x402Settlements.id })
    .from(x402Settlements)
    .where(and(inArray(x402Settlements.status, ["requested", "submitted"]), lt(x402Settlements.createdAt, before)))
    .limit(1_000);
  return rows.map((r) => r.id);
}

import { and, desc, eq, lt, ne, sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { payments, refundRequests, type NewRefundRequest, type RefundRequestRow } from "./schema/index.ts";
import type { Mode } from "../domain/mode.ts";
import type { RefundRequestStatus } from "../domain/refundRequestStatus.ts";

export type { RefundRequestRow };

export async function insertRefundRequest(db: Db, values: NewRefundRequest): Promise<RefundRequestRow> {
  const [row] = await db.insert(refundRequests).values(values).returning();
  return row!;
}

/** A merchant's request by id in one mode (any payment), or undefined. */
export async function findMerchantRefundRequest(db: Db, merchantId: string, mode: Mode, id: string): Promise<RefundRequestRow | undefined> {
  const [row] = await db
    .select()
    .from(refundRequests)
    .where(and(eq(refundRequests.id, id), eq(refundRequests.merchantId, merchantId), eq(refundRequests.mode, mode)));
  return row;
}

/** One request of a payment, or undefined. */
export async function findRefundRequest(db: Db, paymentId: string, id: string): Promise<RefundRequestRow | undefined> {
  const [row] = await db
    .select()
    .from(refundRequests)
    .where(and(eq(refundRequests.paymentId, paymentId), eq(refundRequests.id, id)));
  return row;
}

/** A payment's requests, oldest first. */
export const refundRequestsOf = (db: Db, paymentId: string): Promise<RefundRequestRow[]> =>
  db.select().from(refundRequests).where(eq(refundRequests.paymentId, paymentId)).orderBy(refundRequests.createdAt);

/** A merchant's requests in one mode, newest first, optionally in one status; `before`: older than this creation time. Each with its payment's token and chain. */
export const merchantRefundRequests = (
  db: Db,
  scope: { merchantId: string; mode: Mode; status?: RefundRequestStatus; before?: Date; limit: number },
): Promise<Array<{ request: RefundRequestRow; payment: { tokenDecimals: number; tokenSymbol: string; chainId: string } }>> =>
  db
    .select({ request: refundRequests, payment: { tokenDecimals: payments.tokenDecimals, tokenSymbol: payments.tokenSymbol, chainId: payments.chainId } })
    .from(refundRequests)
    .innerJoin(payments, eq(payments.id, refundRequests.paymentId))
    .where(
      and(
        eq(refundRequests.merchantId, scope.merchantId),
        eq(refundRequests.mode, scope.mode),
        scope.status ? eq(refundRequests.status, scope.status) : undefined,
        scope.before ? lt(refundRequests.createdAt, scope.before) : undefined,
      ),
    )
    .orderBy(desc(refundRequests.createdAt))
    .limit(scope.limit);

/** A payment's requests still awaiting approval. */
export const awaitingRefundRequests = (db: Db, paymentId: string): Promise<RefundRequestRow[]> =>
  db
    .select()
    .from(refundRequests)
    .where(and(eq(refundRequests.paymentId, paymentId), eq(refundRequests.status, "awaiting_approval")))
    .orderBy(refundRequests.createdAt);

/**
 * Moves a request out of `awaiting_approval`, only if it is still there (of two deciders,
 * one wins). Returns the row as it now is, or undefined when it was no longer awaiting.
 */
export async function decideRefundRequest(
  db: Db,
  id: string,
  values: { status: Exclude<RefundRequestStatus, "awaiting_approval">; authorizedBy?: RefundRequestRow["authorizedBy"]; transferId?: string; signature?: string; signer?: string },
): Promise<RefundRequestRow | undefined> {
  const [row] = await db
    .update(refundRequests)
    .set({ ...values, decidedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(refundRequests.id, id), eq(refundRequests.status, "awaiting_approval")))
    .returning();
  return row;
}

/** Closes a payment's requests still awaiting approval (but `except`) as superseded; returns how many. */
export async function supersedeRefundRequests(db: Db, paymentId: string, except: string): Promise<number> {
  const rows = await db
    .update(refundRequests)
    .set({ status: "superseded", decidedAt: sql`now()`, updatedAt: sql`now()` })
    .where(and(eq(refundRequests.paymentId, paymentId), eq(refundRequests.status, "awaiting_approval"), ne(refundRequests.id, except)))
    .returning({ id: refundRequests.id });
  return rows.length;
}

/** Whether this signature already let a refund of the payment out (a signature is good once). */
export async function signatureUsed(db: Db, paymentId: string, signature: string): Promise<boolean> {
  const [row] = await db
    .select({ id: refundRequests.id })
    .from(refundRequests)
    .where(and(eq(refundRequests.paymentId, paymentId), eq(refundRequests.signature, signature)))
    .limit(1);
  return row !== undefined;
}

import { and, asc, desc, eq, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import type { Mode } from "../config/index.ts";
import type { Db } from "./client.ts";
import type { PaymentStatus } from "../domain/paymentStatus.ts";
import { payments } from "./schema/index.ts";

export type PaymentListFilters = {
  statuses?: PaymentStatus[];
  networkId?: string;
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  toExclusive?: Date;
  orderId?: string;
};

/** Pages go newest first; `after` continues to older payments, `before` back to newer ones. */
export type PaymentListCursor = { direction: "after" | "before"; paymentId: string } | null;

const columns = {
  id: payments.id,
  status: payments.status,
  amount: payments.amount,
  amountReceived: payments.amountReceived,
  currency: payments.currency,
  tokenSymbol: payments.tokenSymbol,
  tokenDecimals: payments.tokenDecimals,
  networkId: payments.networkId,
  orderId: payments.orderId,
  agentId: payments.agentId,
  agentOwner: payments.agentOwner,
  isTest: payments.isTest,
  fiatAmount: payments.fiatAmount,
  fiatCurrency: payments.fiatCurrency,
  createdAt: payments.createdAt,
};

export type PaymentListRow = { [K in keyof typeof columns]: (typeof payments.$inferSelect)[K] };

/** Whether a payment exists in this account and mode (cursors must point into the account). */
export async function paymentInAccount(db: Db, merchantId: string, mode: Mode, id: string): Promise<boolean> {
  const rows = await db
    .select({ id: payments.id })
    .from(payments)
    .where(and(eq(payments.id, id), eq(payments.merchantId, merchantId), eq(payments.mode, mode)))
    .limit(1);
  return rows.length > 0;
}

/**
 * One page of the account's payments in the stable order (createdAt, id) descending,
 * keyset-paginated on the merchant/mode/createdAt/id index: `limit + 1` rows are read so
 * the caller knows whether more follow. Rows come back newest first in both directions.
 */
export async function listPayments(
  db: Db,
  account: { merchantId: string; mode: Mode },
  filters: PaymentListFilters,
  cursor: PaymentListCursor,
  limit: number,
): Promise<{ rows: PaymentListRow[]; hasMore: boolean }> {
  const where: SQL[] = [eq(payments.merchantId, account.merchantId), eq(payments.mode, account.mode)];
  if (filters.statuses?.length) where.push(inArray(payments.status, filters.statuses));
  if (filters.networkId) where.push(eq(payments.networkId, filters.networkId));
  if (filters.from) where.push(gte(payments.createdAt, filters.from));
  if (filters.toExclusive) where.push(lt(payments.createdAt, filters.toExclusive));
  if (filters.orderId !== undefined) where.push(eq(payments.orderId, filters.orderId));
  // Compared in SQL against the cursor row itself: no precision lost on microsecond timestamps.
  const at = (id: string) => sql`(select c.created_at, c.id from payments c where c.id = ${id}::uuid)`;
  if (cursor?.direction === "after") where.push(sql`(${payments.createdAt}, ${payments.id}) < ${at(cursor.paymentId)}`);
  if (cursor?.direction === "before") where.push(sql`(${payments.createdAt}, ${payments.id}) > ${at(cursor.paymentId)}`);

  const backwards = cursor?.direction === "before";
  const rows = await db
    .select(columns)
    .from(payments)
    .where(and(...where))
    .orderBy(...(backwards ? [asc(payments.createdAt), asc(payments.id)] : [desc(payments.createdAt), desc(payments.id)]))
    .limit(limit + 1);
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  return { rows: backwards ? page.reverse() : page, hasMore };
}

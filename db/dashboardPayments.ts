import { and, desc, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import type { Mode } from "../domain/mode.ts";
import type { PaymentStatus } from "../domain/paymentStatus.ts";
import { uuidPattern } from "../domain/uuid.ts";
import type { Db } from "./client.ts";
import { payments } from "./schema/index.ts";

/** The dashboard's list filters; `search` matches a payment id, an orderId, a receive address or the completing transaction's hash. */
export type DashboardPaymentFilters = {
  status?: PaymentStatus;
  networkId?: string;
  tokenSymbol?: string;
  /** The agent (`X-Agent-Id`) that created the payment. */
  agentId?: string;
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  toExclusive?: Date;
  search?: string;
  /** The chains whose receive addresses `search` is looked up among (the configured ones). */
  searchChainIds?: readonly string[];
};

const columns = {
  id: payments.id,
  status: payments.status,
  amount: payments.amount,
  amountReceived: payments.amountReceived,
  tokenSymbol: payments.tokenSymbol,
  tokenDecimals: payments.tokenDecimals,
  networkId: payments.networkId,
  orderId: payments.orderId,
  receiveAddress: payments.receiveAddress,
  completingTxHash: payments.completingTxHash,
  createdAt: payments.createdAt,
};

export type DashboardPaymentRow = { [K in keyof typeof columns]: (typeof payments.$inferSelect)[K] };

/**
 * The payments a search names, as a union of indexed lookups (never a scan of the account):
 * the id, the orderId (merchant/mode/orderId index), a receive address (chain/address index,
 * over the chains given) and the completing transaction's hash (its own index).
 */
function searchCondition(account: { merchantId: string; mode: Mode }, search: string, chainIds: readonly string[]): SQL {
  const text = search.trim();
  const lower = text.toLowerCase();
  const lookups: SQL[] = [];
  if (uuidPattern.test(text)) lookups.push(sql`select id from payments where id = ${text}::uuid`);
  lookups.push(sql`select id from payments where merchant_id = ${account.merchantId}::uuid and mode = ${account.mode} and order_id = ${text}`);
  if (chainIds.length > 0) lookups.push(sql`select id from payments where chain_id in (${sql.join(chainIds.map((c) => sql`${c}`), sql`, `)}) and lower(receive_address) = ${lower}`);
  lookups.push(sql`select id from payments where completing_tx_hash is not null and lower(completing_tx_hash) = ${lower}`);
  return sql`${payments.id} in (${sql.join(lookups, sql` union all `)})`;
}

/**
 * One page of the account's payments, newest first, keyset-paged on (createdAt, id) by the
 * merchant/mode/createdAt index; `after`: the last payment id of the previous page. Reads
 * `limit + 1` rows so the caller knows whether more follow.
 */
export async function listDashboardPayments(
  db: Db,
  account: { merchantId: string; mode: Mode },
  filters: DashboardPaymentFilters,
  after: string | null,
  limit: number,
): Promise<{ rows: DashboardPaymentRow[]; hasMore: boolean }> {
  const where: SQL[] = [eq(payments.merchantId, account.merchantId), eq(payments.mode, account.mode)];
  if (filters.status) where.push(eq(payments.status, filters.status));
  if (filters.networkId) where.push(eq(payments.networkId, filters.networkId));
  if (filters.tokenSymbol) where.push(eq(payments.tokenSymbol, filters.tokenSymbol));
  if (filters.agentId) where.push(eq(payments.agentId, filters.agentId));
  if (filters.from) where.push(gte(payments.createdAt, filters.from));
  if (filters.toExclusive) where.push(lt(payments.createdAt, filters.toExclusive));
  if (filters.search) where.push(searchCondition(account, filters.search, filters.searchChainIds ?? []));
  // The cursor row is read within the same account: another account's id pages nothing.
  if (after) {
    where.push(
      sql`(${payments.createdAt}, ${payments.id}) < (select c.created_at, c.id from payments c where c.id = ${after}::uuid and c.merchant_id = ${account.merchantId}::uuid and c.mode = ${account.mode})`,
    );
  }
  const rows = await db
    .select(columns)
    .from(payments)
    .where(and(...where))
    .orderBy(desc(payments.createdAt), desc(payments.id))
    .limit(limit + 1);
  return { rows: rows.slice(0, limit), hasMore: rows.length > limit };
}

/** Which of `ids` (UUIDs) are payments of this merchant and mode. */
export async function ownPaymentIds(db: Db, account: { merchantId: string; mode: Mode }, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select({ id: payments.id })
    .from(payments)
    .where(and(eq(payments.merchantId, account.merchantId), eq(payments.mode, account.mode), sql`${payments.id} = any(${sql.param([...ids])}::uuid[])`));
  return rows.map((r) => r.id);
}

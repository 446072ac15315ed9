import { sql } from "drizzle-orm";
import { preparedPer, type Db } from "./client.ts";
import { payments, type PaymentRow } from "./schema/index.ts";

/** What a status read shows of a payment, and whose it is. */
export type PaymentStatusRow = Pick<
  PaymentRow,
  | "id"
  | "merchantId"
  | "mode"
  | "status"
  | "amount"
  | "amountReceived"
  | "amountRemaining"
  | "currency"
  | "tokenDecimals"
  | "confirmations"
  | "detectedAt"
  | "confirmedAt"
  | "expiresAt"
  | "bridgeStatus"
  | "completingTxHash"
>;

const statusColumns = {
  id: payments.id,
  merchantId: payments.merchantId,
  mode: payments.mode,
  status: payments.status,
  amount: payments.amount,
  amountReceived: payments.amountReceived,
  amountRemaining: payments.amountRemaining,
  currency: payments.currency,
  tokenDecimals: payments.tokenDecimals,
  confirmations: payments.confirmations,
  detectedAt: payments.detectedAt,
  confirmedAt: payments.confirmedAt,
  expiresAt: payments.expiresAt,
  bridgeStatus: payments.bridgeStatus,
  completingTxHash: payments.completingTxHash,
} satisfies { [K in keyof PaymentStatusRow]: unknown };

const byIds = preparedPer((db) =>
  db
    .select(statusColumns)
    .from(payments)
    .where(sql`${payments.id} = any(${sql.placeholder("ids")}::uuid[])`)
    .prepare("payment_statuses_by_ids"),
);

/** The status columns of the payments with these ids (ids must be UUIDs), on one prepared query. */
export async function findPaymentStatuses(db: Db, ids: readonly string[]): Promise<PaymentStatusRow[]> {
  return byIds(db).execute({ ids: [...ids] });
}

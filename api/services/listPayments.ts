import type { Config, Mode } from "../../config/index.ts";
import { networksForMode } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { listPayments as listPaymentRows, paymentInAccount, type PaymentListCursor, type PaymentListFilters } from "../../db/paymentList.ts";
import { rangeEndExclusive, rangeStart } from "../../domain/dateRange.ts";
import { presentPaymentListItem } from "../presenters/paymentListItem.ts";
import { invalidQuery, queryDate, queryInteger, queryStatus, queryText, queryUuid, queryValue, type Query } from "./queryParams.ts";

export const LIST_DEFAULT_LIMIT = 20;
export const LIST_MAX_LIMIT = 100;

/**
 * The merchant's payments, newest first, one page at a time (DESIGN.md "Pagination"):
 * `limit` (1–100, default 20), `startingAfter` / `endingBefore` (payment ids; one at a
 * time), filters `status` (one or a comma list), `network` (shortName), `from` / `to`
 * (inclusive; a date alone is the whole UTC day) and `orderId`. `nextCursor` continues
 * in the same direction with the same parameter; null when `hasMore` is false.
 */
export async function listMerchantPayments(deps: { config: Config; db: Db }, auth: { merchantId: string; mode: Mode }, query: Query) {
  const { config, db } = deps;
  const limit = queryInteger(query, "limit", { min: 1, max: LIST_MAX_LIMIT, fallback: LIST_DEFAULT_LIMIT });
  const filters: PaymentListFilters = {};

  const status = queryValue(query, "status");
  if (status !== undefined) filters.statuses = [...new Set(status.split(",").map((s) => queryStatus("status", s.trim())))];

  const networkName = queryValue(query, "network");
  if (networkName !== undefined) {
    const candidates = networksForMode(config, auth.mode);
    const network = candidates.find((n) => n.shortName === networkName);
    if (!network) throw invalidQuery("network", `unknown network "${networkName.slice(0, 64)}" for ${auth.mode} mode (one of: ${candidates.map((n) => n.shortName).join(", ")})`);
    filters.networkId = network.id;
  }

  const from = queryDate(query, "from");
  const to = queryDate(query, "to");
  if (from) filters.from = rangeStart(from);
  if (to) filters.toExclusive = rangeEndExclusive(to);
  if (filters.from && filters.toExclusive && filters.from >= filters.toExclusive) throw invalidQuery("to", "must not be before 'from'");

  // As stored: creation keeps an order id as sent, spaces included (empty, like every parameter, is none).
  const orderId = queryText(query, "orderId") || undefined;
  if (orderId !== undefined) {
    if (orderId.length > 200) throw invalidQuery("orderId", "at most 200 characters");
    filters.orderId = orderId;
  }

  const startingAfter = queryUuid(query, "startingAfter");
  const endingBefore = queryUuid(query, "endingBefore");
  if (startingAfter && endingBefore) throw invalidQuery("endingBefore", "use either 'startingAfter' or 'endingBefore', not both");
  let cursor: PaymentListCursor = null;
  if (startingAfter) cursor = { direction: "after", paymentId: startingAfter };
  if (endingBefore) cursor = { direction: "before", paymentId: endingBefore };
  if (cursor && !(await paymentInAccount(db, auth.merchantId, auth.mode, cursor.paymentId))) {
    const name = cursor.direction === "after" ? "startingAfter" : "endingBefore";
    throw invalidQuery(name, `no payment ${cursor.paymentId} in this account's ${auth.mode} data`);
  }

  const { rows, hasMore } = await listPaymentRows(db, auth, filters, cursor, limit);
  const networks = new Map(config.networks.map((n) => [n.id, n]));
  const edge = cursor?.direction === "before" ? rows[0] : rows[rows.length - 1];
  return {
    success: true,
    payments: rows.map((row) => presentPaymentListItem(row, networks.get(row.networkId))),
    hasMore,
    nextCursor: hasMore && edge ? edge.id : null,
  };
}

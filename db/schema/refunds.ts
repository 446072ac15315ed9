/** Refund requests: every ask for a payment's refund, and what became of it. */
import { sql } from "drizzle-orm";
import { index, pgTable, text, timestamp, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { refundAuthorities, refundRequestStatuses } from "../../domain/refundRequestStatus.ts";
import { amount, createdAt } from "./columns.ts";
import { paymentOwned } from "./paymentOwned.ts";
import { transfersOut } from "./transfers.ts";

/**
 * One row per refund request, whoever asked: one that went out at once (to the payer, signed
 * for, or the merchant's own) and one that waits for the merchant's approval alike. Its
 * refund, once reserved, is a `transfers_out` row (`transferId`).
 */
export const refundRequests = pgTable(
  "refund_requests",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    ...paymentOwned(),
    status: text("status", { enum: refundRequestStatuses }).notNull(),
    /** Where the refund goes, in the rail's canonical form. */
    toAddress: text("to_address").notNull(),
    /** The most it may send, smallest units: what was owed when asked, or what a signature covers. */
    amount: amount("amount").notNull(),
    reason: text("reason"),
    /** Who asked: `customer` (no credentials or the public key) or `merchant` (key + secret). */
    requestedBy: text("requested_by", { enum: ["customer", "merchant"] }).notNull(),
    /** How it was let out, once `sent`. */
    authorizedBy: text("authorized_by", { enum: refundAuthorities }),
    /** A paying address's signature over the request's message, and that address (once verified). */
    signature: text("signature"),
    signer: text("signer"),
    transferId: uuid("transfer_id").references(() => transfersOut.id),
    /** When it left `awaiting_approval`. */
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("refund_requests_payment_idx").on(t.paymentId, t.createdAt),
    index("refund_requests_merchant_idx").on(t.merchantId, t.mode, t.createdAt),
    // A signature lets one refund out, once.
    uniqueIndex("refund_requests_signature_idx").on(t.paymentId, t.signature).where(sql`signature is not null`),
  ],
);

export type RefundRequestRow = typeof refundRequests.$inferSelect;
export type NewRefundRequest = typeof refundRequests.$inferInsert;

import { text, uuid } from "drizzle-orm/pg-core";
import { modes } from "../../domain/mode.ts";
import { merchants } from "./merchants.ts";
import { payments } from "./payments.ts";

/**
 * The columns of a row that belongs to one payment (a refund request, an x402 settlement):
 * the payment, and its merchant and mode kept beside it so a merchant's list walks one index.
 * Gone with the payment or the merchant.
 */
export const paymentOwned = () => ({
  paymentId: uuid("payment_id")
    .notNull()
    .references(() => payments.id, { onDelete: "cascade" }),
  merchantId: uuid("merchant_id")
    .notNull()
    .references(() => merchants.id, { onDelete: "cascade" }),
  mode: text("mode", { enum: modes }).notNull(),
});

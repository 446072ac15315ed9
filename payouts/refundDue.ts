import { formatAmount } from "../domain/amounts.ts";
import { refundable, refundMinimum, sweepOwed } from "../domain/refundable.ts";
import type { PaymentRow } from "../db/schema/index.ts";

/** Why a refund cannot go out: a stable code (the error body's `error`) and words for the customer. */
export type RefundRefusal = { code: string; message: string };

export type RefundDue = { amount: bigint } | { refused: RefundRefusal };

type DuePayment = Pick<PaymentRow, "status" | "excessOwed" | "receiveAddress" | "completedVia" | "amount" | "tokenDecimals" | "tokenSymbol">;

/**
 * What a refund of `payment` may send now, in smallest units, whoever asks: what the
 * payment owes the customer less refunds made or under way (`refunded`), no more than
 * `stillHeld` (what its address holds now beyond the sweep still due to the merchant, less
 * `swept`; null: not read, for a request that sends nothing yet), no more than `cap` (what a
 * request asked for, or a signature covers; null: no cap), and at least `minimum` token
 * units (a decimal string), since anyone holding the payment id may ask and dust would cost
 * the operator a transaction each time.
 */
export function refundDue(input: { payment: DuePayment; refunded: bigint; swept: bigint; stillHeld: bigint | null; cap: bigint | null; minimum: string }): RefundDue {
  const { payment: p } = input;
  const owed = refundable(p, input.refunded);
  if (owed === 0n) {
    const yet = p.status === "pending" || p.status === "confirming" ? " yet" : "";
    return { refused: { code: "nothing_to_refund", message: `Nothing to refund: the payment is ${p.status} and owes the customer nothing${yet}.` } };
  }
  let amount = owed;
  if (input.stillHeld !== null) {
    // Money paid through the settlement contract went straight to the merchant (a customer who
    // paid twice, or whose contract payment landed after a close): the address holds none of it.
    const spare = input.stillHeld - sweepOwed(p, input.swept);
    if (spare <= 0n) {
      return {
        refused: {
          code: "refund_not_held",
          message: `Nothing to refund from here: the payment owes the customer ${owed} (smallest units), but its address holds none of it beyond what is due to the merchant (money paid through the settlement contract went to the merchant directly); the merchant returns what is owed.`,
        },
      };
    }
    if (spare < amount) amount = spare;
  }
  if (input.cap !== null && input.cap < amount) amount = input.cap;
  const minimum = refundMinimum(input.minimum, p.tokenDecimals);
  if (amount < minimum) {
    const units = (v: bigint) => `${formatAmount(v, p.tokenDecimals)} ${p.tokenSymbol}`;
    return {
      refused: {
        code: "refund_below_minimum",
        message: `Nothing to refund from here: the refund would send ${units(amount)}, less than the ${units(minimum)} this service refunds at least (its network fee would cost more than it returns); contact the merchant.`,
      },
    };
  }
  return { amount };
}

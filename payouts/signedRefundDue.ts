import { formatAmount } from "../domain/amounts.ts";
import { refundMinimum } from "../domain/refundable.ts";
import type { PaymentRow } from "../db/schema/index.ts";
import type { RefundDue } from "./refundDue.ts";

type SignedPayment = Pick<PaymentRow, "amountReceived" | "tokenDecimals" | "tokenSymbol">;

/**
 * What a refund the merchant's wallet signs may send, in smallest units: `asked` (null: all
 * that is left), never more than the payment received less the refunds sent or under way
 * (`refunded`) — the merchant may return all of it, fee included — and at least `minimum`
 * token units (a decimal string), as every refund.
 */
export function signedRefundDue(input: { payment: SignedPayment; refunded: bigint; asked: bigint | null; minimum: string }): RefundDue {
  const { payment: p, refunded, asked } = input;
  const units = (v: bigint) => `${formatAmount(v, p.tokenDecimals)} ${p.tokenSymbol}`;
  const left = p.amountReceived > refunded ? p.amountReceived - refunded : 0n;
  if (left === 0n) return { refused: { code: "nothing_to_refund", message: `Nothing to refund: the payment received ${units(p.amountReceived)} and ${units(refunded)} of it is refunded or on its way.` } };
  if (asked !== null && asked > left) {
    return { refused: { code: "nothing_to_refund", message: `Nothing that large to refund: the payment received ${units(p.amountReceived)}, of which ${units(left)} is not refunded yet.` } };
  }
  const amount = asked ?? left;
  const minimum = refundMinimum(input.minimum, p.tokenDecimals);
  if (amount < minimum) return { refused: { code: "refund_below_minimum", message: `A refund sends at least ${units(minimum)}; this one would send ${units(amount)}.` } };
  return { amount };
}

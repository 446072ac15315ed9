import { ceilDiv, parseDecimal } from "./decimal.ts";

/** What can be sent back from a payment's deposit address: what is owed the customer, less refunds already made or under way. */
export function refundable(payment: { excessOwed: bigint; receiveAddress: string | null }, refunded: bigint): bigint {
  if (!payment.receiveAddress) return 0n;
  return payment.excessOwed > refunded ? payment.excessOwed - refunded : 0n;
}

/**
 * What the merchant is owed from a payment's deposit address: the amount, once the
 * payment completed through transfers to that address (with the network's required
 * confirmations, which `completed` implies), less what was already swept. A contract
 * payment paid the merchant directly, so nothing is owed from the address.
 */
export function sweepOwed(
  payment: { status: string; completedVia: string | null; receiveAddress: string | null; amount: bigint },
  swept: bigint,
): bigint {
  if (payment.status !== "completed" || payment.completedVia !== "transfer" || !payment.receiveAddress) return 0n;
  return payment.amount > swept ? payment.amount - swept : 0n;
}

/** The least a refund sends, in a token's smallest units: `minimum` token units (a decimal string), rounded up. */
export function refundMinimum(minimum: string, decimals: number): bigint {
  const value = parseDecimal(minimum);
  if (!value) throw new RangeError(`not a decimal amount: ${minimum}`);
  return ceilDiv(value.units * 10n ** BigInt(decimals), 10n ** BigInt(value.scale));
}

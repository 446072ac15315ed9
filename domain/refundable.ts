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

/**
 * Where the next sweep of a deposit address goes, and how much. A contract payment paid by a
 * plain transfer to its address (the QR code, a wallet's transfer) carries the service fee its
 * intent named, as the contract would have taken it: the merchant's share (the amount less the
 * fee) is forwarded first, then the fee to its recipient. `swept` counts every sweep reserved.
 */
export function nextSweep(
  payment: { status: string; completedVia: string | null; receiveAddress: string | null; amount: bigint; merchantWallet: string; feeAmount: bigint; feeRecipient: string | null },
  swept: bigint,
): { to: string; amount: bigint } | null {
  const owed = sweepOwed(payment, swept);
  if (owed === 0n) return null;
  const fee = payment.feeRecipient && payment.feeAmount > 0n && payment.feeAmount <= payment.amount ? payment.feeAmount : 0n;
  const merchantShare = payment.amount - fee;
  if (swept < merchantShare) return { to: payment.merchantWallet, amount: merchantShare - swept };
  return { to: payment.feeRecipient!, amount: owed };
}

/** The least a refund sends, in a token's smallest units: `minimum` token units (a decimal string), rounded up. */
export function refundMinimum(minimum: string, decimals: number): bigint {
  const value = parseDecimal(minimum);
  if (!value) throw new RangeError(`not a decimal amount: ${minimum}`);
  return ceilDiv(value.units * 10n ** BigInt(decimals), 10n ** BigInt(value.scale));
}

/** What can be sent back from a payment's deposit address: what is owed the customer, less refunds already made or under way. */
export function refundable(payment: { excessOwed: bigint; receiveAddress: string | null }, refunded: bigint): bigint {
  if (!payment.receiveAddress) return 0n;
  return payment.excessOwed > refunded ? payment.excessOwed - refunded : 0n;
}

/**
 * What a customer sends the local bridge for the recipient to receive `amount`: the amount
 * converted to the origin token's decimals (USD stablecoins, 1:1), rounded up so the relayer
 * is never short, plus the relayer's fee of `feeBps` on it, rounded up. All in smallest units.
 */
export function localAmounts(input: { amount: bigint; destinationDecimals: number; originDecimals: number; feeBps: number }): {
  /** `amount` in origin units: what the fill is worth in the relayer's books. */
  base: bigint;
  fee: bigint;
  amountToSend: bigint;
} {
  const { amount, destinationDecimals, originDecimals, feeBps } = input;
  if (amount <= 0n) throw new RangeError("amount must be positive");
  const base =
    originDecimals >= destinationDecimals
      ? amount * 10n ** BigInt(originDecimals - destinationDecimals)
      : ceilDiv(amount, 10n ** BigInt(destinationDecimals - originDecimals));
  const fee = ceilDiv(base * BigInt(feeBps), 10_000n);
  return { base, fee, amountToSend: base + fee };
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

import type { Hex } from "viem";

const paddedUuidPattern = /^0x0{32}([0-9a-f]{32})$/i;

/**
 * The lowercase dashed UUID a bytes32 payment id encodes (inverse of `paymentIdToBytes32`),
 * or null when the value is not a left-padded UUID (high 16 bytes not zero, or not 32 bytes):
 * an id this service did not issue.
 */
export function bytes32ToPaymentId(hex: Hex): string | null {
  const digits = paddedUuidPattern.exec(hex)?.[1]?.toLowerCase();
  if (digits === undefined) return null;
  return [digits.slice(0, 8), digits.slice(8, 12), digits.slice(12, 16), digits.slice(16, 20), digits.slice(20)].join("-");
}

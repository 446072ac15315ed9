import { getAddress, isAddress } from "viem";

/**
 * An EVM address in its EIP-55 checksummed form, or null. A mixed-case address must
 * carry a valid checksum (a flipped letter is a typo, not a new address); an all-lower
 * or all-upper one is accepted and checksummed.
 */
export function normalizeEvmAddress(address: string): string | null {
  const value = address.trim();
  if (!isAddress(value, { strict: false })) return null;
  const body = value.slice(2);
  const mixedCase = body !== body.toLowerCase() && body !== body.toUpperCase();
  if (mixedCase && !isAddress(value, { strict: true })) return null;
  return getAddress(value);
}

import { PublicKey } from "@solana/web3.js";
import { getAddress, isAddress } from "viem";
import type { NetworkType } from "../config/types.ts";

/**
 * Validates an address for a network type and returns its canonical form.
 * EVM: a mixed-case address must carry a valid EIP-55 checksum; an all-lower or
 * all-upper one is accepted and checksummed. Solana: a base58 32-byte public key.
 * Returns null when the address is not valid for that network type.
 */
export function normalizeAddress(type: NetworkType, address: string): string | null {
  const value = address.trim();
  if (type === "evm") {
    if (!isAddress(value, { strict: false })) return null;
    const body = value.slice(2);
    const mixedCase = body !== body.toLowerCase() && body !== body.toUpperCase();
    if (mixedCase && !isAddress(value, { strict: true })) return null;
    return getAddress(value);
  }
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value)) return null;
  try {
    return new PublicKey(value).toBase58() === value ? value : null;
  } catch {
    return null;
  }
}

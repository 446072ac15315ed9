import type { NetworkType } from "./networkType.ts";
import { normalizeEvmAddress } from "./evmAddress.ts";
import { normalizeSolanaAddress } from "./solanaAddress.ts";

/**
 * How addresses are written on each network type: the validator that returns an
 * address's canonical form, and how to describe one in an error. A leaf module (no
 * registry, no config) so that configuration can validate token addresses at start.
 */
export const addressFormats: Record<NetworkType, { normalize: (address: string) => string | null; description: string }> = {
  evm: { normalize: normalizeEvmAddress, description: "EVM address (0x + 40 hex digits; a mixed-case address must have a valid EIP-55 checksum)" },
  solana: { normalize: normalizeSolanaAddress, description: "Solana address (a base58 public key)" },
};

/** An address's canonical form on a network type, or null when it is not a valid address there. */
export const normalizeAddress = (type: NetworkType, address: string): string | null => addressFormats[type].normalize(address);

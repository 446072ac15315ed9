import type { Network } from "../config/types.ts";
import { normalizeAddress } from "../domain/addressFormats.ts";

/** A chain's null address: tokens sent there are burnt. */
const NULL_ADDRESS: Record<Network["type"], string> = {
  evm: "0x0000000000000000000000000000000000000000",
  solana: "11111111111111111111111111111111",
};

/**
 * Addresses on `network` that tokens sent to never come back from (or whose transfer
 * reverts): its null address, its stablecoins' own contracts (mints), the service's
 * contracts, and any `extra` (a payment's own token and contract), in canonical form.
 * Neither a refund nor a settlement wallet may be one of them.
 */
export function unreceivableAddresses(network: Network, extra: ReadonlyArray<string | null> = []): Set<string> {
  const candidates = [NULL_ADDRESS[network.type], ...network.tokens.map((t) => t.address), network.settlementContract, network.forwarderFactory, ...extra];
  return new Set(candidates.flatMap((a) => (a ? [normalizeAddress(network.type, a)].filter((n): n is string => n !== null) : [])));
}

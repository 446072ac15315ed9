import type { Network } from "../config/types.ts";
import { chainFor } from "./registry.ts";

/**
 * Addresses on `network` that tokens sent to never come back from (or whose transfer
 * reverts): its null address, its stablecoins' own contracts (mints), the service's
 * contracts, and any `extra` (a payment's own token and contract), in canonical form.
 * Neither a refund nor a settlement wallet may be one of them.
 */
export function unreceivableAddresses(network: Network, extra: ReadonlyArray<string | null> = []): Set<string> {
  const chain = chainFor(network);
  if (!chain) return new Set();
  const candidates = [chain.nullAddress, ...network.tokens.map((t) => t.address), network.settlementContract, network.forwarderFactory, ...extra];
  return new Set(candidates.flatMap((a) => (a ? [chain.normalizeAddress(a)].filter((n): n is string => n !== null) : [])));
}

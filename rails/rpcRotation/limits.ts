import type { RotationLimits } from "./providerRotation.ts";

/**
 * How providers are judged, per kind of chain. Local chains (anvil, the litesvm devchain)
 * are probed often so a dropped node shows within a test's patience. Lag limits are about
 * a minute of chain time: a node that far behind cannot credit a payment in time.
 */
export function rotationLimits(network: { type: "evm" | "solana"; isLocal: boolean }): RotationLimits {
  if (network.isLocal) return { intervalMs: 250, maxLag: network.type === "solana" ? 150n : 20n, stuckMs: 2_000 };
  return network.type === "solana"
    ? { intervalMs: 5_000, maxLag: 150n, stuckMs: 30_000 }
    : { intervalMs: 5_000, maxLag: 20n, stuckMs: 60_000 };
}

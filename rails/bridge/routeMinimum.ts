import { bridgeAdapterFor, type Network } from "../../config/index.ts";
import { formatAmount } from "../../domain/amounts.ts";
import type { RailContext } from "../types.ts";
import { localFillMinimum } from "./local/fillMinimum.ts";

/**
 * The least a payment from `origin` to `destination` can be (what the merchant receives, a
 * decimal in the destination token's units), when the route's bridge states its minimum
 * before a quote: the local bridge, from the fill's gas at the chain's current price (the
 * largest over the destination's tokens, so any amount at or above it is taken in each).
 * Null when the bridge tells its minimum only by refusing a quote (Relay: NO_ROUTE), when it
 * has none, or when the chain cannot be read now.
 */
export async function routeMinimum(ctx: RailContext, origin: Network, destination: Network): Promise<string | null> {
  if (bridgeAdapterFor(ctx.config.bridge, origin, destination) !== "local") return null;
  const minimums = await Promise.all(destination.tokens.map((token) => localFillMinimum(ctx, destination, token).catch(() => null)));
  let largest: { units: bigint; decimals: number } | null = null;
  for (const [i, token] of destination.tokens.entries()) {
    const units = minimums[i];
    if (units === null || units === undefined) continue;
    // Compared at one scale: tokens of one chain may differ in decimals.
    const scaled = (m: { units: bigint; decimals: number }) => m.units * 10n ** BigInt(36 - m.decimals);
    if (!largest || scaled({ units, decimals: token.decimals }) > scaled(largest)) largest = { units, decimals: token.decimals };
  }
  return largest ? formatAmount(largest.units, largest.decimals) : null;
}

import { openStalls } from "../db/ingestWatch.ts";
import { ingests, type RailContext } from "../rails/index.ts";

/**
 * Per chain, the time up to which its evidence is known complete, as `settle` takes it
 * for expiry: each ingest's own bound, held back to the start of a stall the worker's
 * watch has open on the chain (then the payments' expiry waits, and is extended when
 * the stall ends). A chain with neither has no bound: the clock alone expires there.
 */
export async function evidenceHorizons(ctx: RailContext): Promise<Map<string, Date>> {
  const [stalls, ...bounds] = await Promise.all([openStalls(ctx.db), ...ingests().map((ingest) => ingest.evidenceHorizons(ctx))]);
  const horizons = new Map(bounds.flatMap((m) => [...m]));
  for (const [chainId, since] of stalls) {
    const bound = horizons.get(chainId);
    horizons.set(chainId, bound && bound < since ? bound : since);
  }
  return horizons;
}

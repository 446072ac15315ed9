import {
  claimSolanaDepositAddress,
  dropFreeSolanaDepositAddressesOfOtherSeeds,
  insertSolanaDepositAddresses,
  solanaDepositPoolState,
  withSolanaDepositPoolLock,
} from "./depositAddressRows.ts";
import { ServiceUnavailableError } from "../../domain/errors.ts";
import type { PrepareContext, RailContext } from "../types.ts";
import { depositSeedId, poolKeypair } from "./depositKeys.ts";

/** What a create answers when no deposit address is free (503: retry shortly; the worker was prompted). */
export const POOL_EMPTY = "No Solana deposit address is free right now: the worker is deriving more (SOLANA_DEPOSIT_SEED); retry shortly.";

/**
 * A free deposit address for a new payment, taken from the pool the worker fills: the API
 * derives nothing and holds no seed. None free: the worker is prompted to refill at once and
 * the create answers 503.
 */
export async function claimDepositAddress(ctx: PrepareContext, paymentId: string): Promise<string> {
  const address = await claimSolanaDepositAddress(ctx.db, paymentId);
  if (address) return address;
  // The prompt is best effort: the periodic refill comes within seconds anyway.
  await ctx.prompts?.replenish().catch(() => {});
  throw new ServiceUnavailableError(POOL_EMPTY);
}

/**
 * Tops the pool up to SOLANA_DEPOSIT_POOL_SIZE free addresses once fewer than
 * SOLANA_DEPOSIT_POOL_REFILL_BELOW are free, deriving the next indexes of SOLANA_DEPOSIT_SEED.
 * One process at a time (a lock; another finding it held does nothing); what a crash cut
 * short is done by the next run. Free addresses of another seed (the seed was replaced) are
 * removed first: they were never handed out, and this worker could not sign for them.
 * Null when there was nothing to do; throws where there is no seed to derive from.
 */
export async function replenishDepositPool(ctx: RailContext): Promise<string | null> {
  const { config } = ctx;
  if (!config.networks.some((n) => n.type === "solana" && n.enabled)) return null;
  const seed = config.solana.depositSeed;
  if (!seed) throw new ServiceUnavailableError("Solana deposit addresses cannot be derived: SOLANA_DEPOSIT_SEED is not set in the worker.");
  const seedId = depositSeedId(seed);
  const { size, refillBelow } = config.solana.depositPool;
  const result = await withSolanaDepositPoolLock(ctx.db, async (tx) => {
    const dropped = await dropFreeSolanaDepositAddressesOfOtherSeeds(tx, seedId);
    if (dropped > 0) ctx.logger.warn({ dropped, seedId }, "free Solana deposit addresses of another seed removed (SOLANA_DEPOSIT_SEED changed?)");
    const { free, nextIndex } = await solanaDepositPoolState(tx, seedId);
    if (free >= refillBelow) return null;
    const rows = Array.from({ length: size - free }, (_, i) => {
      const index = nextIndex + i;
      return { seedId, index, address: poolKeypair(seed, index).publicKey.toBase58() };
    });
    await insertSolanaDepositAddresses(tx, rows);
    return `derived Solana deposit addresses ${nextIndex} to ${nextIndex + rows.length - 1} (${size} free)`;
  });
  return result ?? null;
}

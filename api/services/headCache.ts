import type { Db } from "../../db/client.ts";
import { indexedBlocks } from "../../db/indexerProgress.ts";

/**
 * The indexed head per chain, cached briefly: status reads count confirmations live
 * without adding a query per request.
 */
export function createHeadCache(db: Db, indexerSchema: string, ttlMs = 250) {
  let cached: { at: number; value: Promise<Map<string, bigint>> } | null = null;
  return async (chainId: string): Promise<bigint | null> => {
    if (!cached || Date.now() - cached.at > ttlMs) {
      const value = indexedBlocks(db, indexerSchema).catch(() => new Map<string, bigint>());
      cached = { at: Date.now(), value };
    }
    return (await cached.value).get(chainId) ?? null;
  };
}

export type HeadCache = ReturnType<typeof createHeadCache>;

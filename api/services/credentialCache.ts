import type { Logger } from "../../config/logger.ts";
import type { Db } from "../../db/client.ts";
import { CREDENTIALS_REVOKED_CHANNEL, findActiveCredential, onCredentialsRevoked, type ActiveCredential } from "../../db/credentials.ts";
import { startNotifyLoop } from "../../db/notifyLoop.ts";

export type CredentialLookup = {
  /** The active credential with this key, as `findActiveCredential` answers. */
  find(key: string): Promise<ActiveCredential | undefined>;
  /** Whether lookups are being cached (the listening connection is up). */
  caching(): boolean;
  stop(): Promise<void>;
};

/**
 * Active credentials looked up by key, kept for at most `ttlMs` so that a status read
 * costs one query, not two. Revocation stays immediate: a rotation NOTIFYs on commit and
 * every process drops everything it holds (in this process even before the NOTIFY); the
 * cache is used only while its listening connection is up, and a (re)connection starts
 * empty, so a revocation is never missed for longer than the notification takes to
 * arrive. Unknown keys are never cached: a new key works at once, a wrong one costs a
 * query as before.
 */
export function createCredentialCache(options: { db: Db; databaseUrl: string | undefined; logger: Logger; ttlMs?: number; maxEntries?: number }): CredentialLookup {
  const { db } = options;
  const maxEntries = options.maxEntries ?? 10_000;
  const ttlMs = options.ttlMs ?? 5_000;
  // Each entry keeps when it was read: the TTL holds even while a tick waits out a silent
  // listener's probe (another 5 s), when no drop comes to clear the map.
  const entries = new Map<string, { credential: ActiveCredential; at: number }>();
  // Bumped by every drop: a lookup that started before one must not store what it read.
  let generation = 0;
  const drop = () => {
    generation++;
    entries.clear();
  };
  const unsubscribe = onCredentialsRevoked(drop);
  const loop = options.databaseUrl
    ? startNotifyLoop({
        name: "credential cache",
        channel: CREDENTIALS_REVOKED_CHANNEL,
        databaseUrl: options.databaseUrl,
        // Each tick (and each new connection) starts over: the TTL.
        intervalMs: ttlMs,
        logger: options.logger,
        run: async () => {},
        prepare: async () => {
          drop();
          return true;
        },
        onNotification: drop,
      })
    : null;

  return {
    async find(key) {
      if (!loop?.listening()) return findActiveCredential(db, key);
      const cached = entries.get(key);
      if (cached && performance.now() - cached.at < ttlMs) return cached.credential;
      const started = generation;
      const at = performance.now();
      const found = await findActiveCredential(db, key);
      if (found && started === generation && loop.listening()) {
        if (entries.size >= maxEntries) entries.clear();
        entries.set(key, { credential: found, at });
      }
      return found;
    },
    caching: () => loop?.listening() ?? false,
    async stop() {
      unsubscribe();
      await loop?.stop();
      entries.clear();
    },
  };
}

import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import { advanceCursor, readCursor } from "../db/dispatchCursors.ts";
import { startNotifyLoop } from "../db/notifyLoop.ts";
import { confirmingPayments } from "../db/paymentsToRevisit.ts";
import type { Prompts } from "../domain/prompts.ts";
import { ingests, networksOf } from "../rails/index.ts";

import { INDEXED_CHANNEL } from "../rails/types.ts";

export { INDEXED_CHANNEL };

/**
 * Turns newly ingested evidence into reconcile prompts. Woken at once by each ingest's
 * NOTIFY; a timer re-runs it as the safety net (a missed notification, a restarted
 * worker), reading each chain's evidence from a cursor kept in Postgres. Running it
 * twice only repeats prompts that dedupe by job id, and reconciling is idempotent anyway.
 */
export function startDispatcher(deps: { config: Config; db: Db; logger: Logger; prompts: Prompts; databaseUrl: string; intervalMs?: number }) {
  const { config, db, prompts } = deps;
  const ctx = { config, db, logger: deps.logger, databaseUrl: deps.databaseUrl };

  async function dispatchOnce(): Promise<void> {
    for (const ingest of ingests()) {
      const heads = await ingest.indexedHeads(ctx);
      for (const network of networksOf(config, ingest)) {
        const head = heads.get(network.chainId);
        if (head === undefined) continue;
        const cursor = await readCursor(db, network.chainId);
        if (cursor && cursor.block === head && !ingest.evidenceAheadOfHead) continue;
        const evidence = await ingest.newEvidence(ctx, network, cursor, head);
        if (cursor && cursor.block === head && evidence.paymentIds.length === 0) continue;
        // Confirming payments change with the head alone.
        const ids = [...evidence.paymentIds, ...(await confirmingPayments(db, network.chainId))];
        // Evidence ahead of the head gives new prompts at the same head: the ingest's cursor tells them apart.
        const reason = ingest.evidenceAheadOfHead ? `${network.chainId}-${head}-${evidence.cursor.windowDigest ?? ""}` : `${network.chainId}-${head}`;
        await prompts.reconcile(ids, reason, { chainId: network.chainId, block: evidence.cursor.block });
        await advanceCursor(db, network.chainId, evidence.cursor);
      }
    }
  }

  return startNotifyLoop({
    name: "dispatch",
    channel: INDEXED_CHANNEL,
    databaseUrl: deps.databaseUrl,
    intervalMs: deps.intervalMs ?? 2_000,
    logger: deps.logger,
    run: dispatchOnce,
    // Listening starts once an ingest can announce its commits; the others are asked again on
    // every tick (Ponder's tables appear at its first start), the timer covering them meanwhile.
    prepare: async (client) => {
      const ready = await Promise.all(ingests().map((ingest) => ingest.announceIngest(client, ctx, INDEXED_CHANNEL)));
      return ready.some(Boolean);
    },
  });
}

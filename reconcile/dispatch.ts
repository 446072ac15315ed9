import type { Queue } from "bullmq";
import pg from "pg";
import { coalescing } from "../jobs/coalesce.ts";
import type { Config } from "../config/index.ts";
import type { Logger } from "../config/logger.ts";
import type { Db } from "../db/client.ts";
import { advanceCursor, confirmingPayments, paymentsWithNewEvidence, readCursor, windowDigest } from "../db/dispatchQueries.ts";
import { indexedBlocks } from "../db/indexerProgress.ts";
import { enqueueReconcile } from "../jobs/enqueue.ts";

export const INDEXED_CHANNEL = "stablepay_indexed";
/** How many blocks below the cursor are watched for rewrites by a reorg. */
const REORG_WINDOW = 64n;

/**
 * Makes Postgres announce every indexer commit: Ponder updates `_ponder_checkpoint`
 * in the transaction that writes a block's rows, so the NOTIFY arrives when they are
 * visible. The trigger goes on the table behind the views schema's `_ponder_checkpoint`,
 * so a blue/green indexer switch moves it along. Idempotent.
 */
async function installTrigger(client: pg.Client, viewsSchema: string): Promise<boolean> {
  const { rows } = await client.query(
    `select table_schema from information_schema.view_table_usage
     where view_schema = $1 and view_name = '_ponder_checkpoint' and table_name = '_ponder_checkpoint'`,
    [viewsSchema],
  );
  const baseSchema: string | undefined = rows[0]?.table_schema;
  if (!baseSchema) return false;
  const table = `"${baseSchema.replaceAll('"', '""')}"."_ponder_checkpoint"`;
  await client.query(`
    create or replace function stablepay_notify_indexed() returns trigger language plpgsql as $$
    begin perform pg_notify('${INDEXED_CHANNEL}', new.chain_id::text); return new; end $$;`);
  const { rows: existing } = await client.query(
    "select 1 from pg_trigger where tgname = 'stablepay_notify_indexed' and tgrelid = to_regclass($1)",
    [table],
  );
  if (existing.length === 0) {
    await client.query(`create trigger stablepay_notify_indexed after insert or update on ${table} for each row execute function stablepay_notify_indexed()`);
  }
  return true;
}

/**
 * Turns newly indexed rows into `reconcile` jobs. Woken at once by NOTIFY; a timer
 * re-runs it as the safety net (a missed notification, a restarted worker), tailing
 * the rows from a cursor kept in Postgres. Running it twice only repeats prompts that
 * dedupe by job id, and reconciling is idempotent anyway.
 */
export function startDispatcher(deps: { config: Config; db: Db; logger: Logger; queue: Queue; databaseUrl: string; intervalMs?: number }) {
  const { config, db, logger, queue } = deps;
  const evm = config.networks.filter((n) => n.enabled && n.type === "evm");
  let listener: pg.Client | null = null;

  async function dispatchOnce(): Promise<void> {
    const heads = await indexedBlocks(db, config.indexer.viewsSchema);
    for (const network of evm) {
      const head = heads.get(network.chainId);
      if (head === undefined) continue;
      const cursor = await readCursor(db, network.chainId);
      if (cursor && cursor.block === head) continue;
      // Normally only rows above the cursor are new. If the rows just below it changed
      // since the cursor was set (a reorg rewrote those blocks), look at them again.
      let from = cursor?.block ?? -1n;
      if (cursor) {
        const below = cursor.block > REORG_WINDOW ? cursor.block - REORG_WINDOW : -1n;
        if ((await windowDigest(db, config.indexer.viewsSchema, network.chainId, below, cursor.block)) !== cursor.windowDigest) from = below;
      }
      // Evidence still inside the confirmation window is looked at again on every new
      // block: its payment's answer changes with the head alone, and a `confirming`
      // status may not be committed yet (its reconcile job can still be running).
      const unconfirmedFloor = head - BigInt(Math.max(1, network.requiredConfirmations));
      if (unconfirmedFloor < from) from = unconfirmedFloor;
      const ids = [
        ...(await paymentsWithNewEvidence(db, config.indexer.viewsSchema, network.chainId, from)),
        ...(await confirmingPayments(db, network.chainId)),
      ];
      await enqueueReconcile(queue, ids, `${network.chainId}-${head}`);
      const windowStart = head > REORG_WINDOW ? head - REORG_WINDOW : -1n;
      await advanceCursor(db, network.chainId, head, await windowDigest(db, config.indexer.viewsSchema, network.chainId, windowStart, head));
    }
  }

  const loop = coalescing(dispatchOnce, (error) => logger.warn({ err: error }, "dispatch failed; will retry"));
  const wake = loop.wake;

  async function connectListener(): Promise<void> {
    if (listener || loop.stopped()) return;
    const client = new pg.Client({ connectionString: deps.databaseUrl });
    client.on("error", (error) => {
      logger.warn({ err: error }, "dispatch listener lost; reconnecting");
      listener = null;
    });
    await client.connect();
    if (!(await installTrigger(client, config.indexer.viewsSchema))) {
      await client.end();
      return; // the indexer has not created its tables yet; the timer tries again
    }
    client.on("notification", () => void wake());
    await client.query(`listen ${INDEXED_CHANNEL}`);
    listener = client;
    logger.info("dispatch listening for indexed blocks");
  }

  const timer = setInterval(() => {
    void connectListener()
      .then(async () => {
        // The indexer may have recreated its schema (and our trigger with it).
        if (listener) await installTrigger(listener, config.indexer.viewsSchema);
      })
      .catch((error) => logger.warn({ err: error }, "dispatch listener setup failed"));
    void wake();
  }, deps.intervalMs ?? 2_000);

  void connectListener().catch((error) => logger.warn({ err: error }, "dispatch listener setup failed"));
  void wake();

  return {
    wake,
    stop: async () => {
      clearInterval(timer);
      await loop.stop();
      await listener?.end().catch(() => {});
    },
  };
}

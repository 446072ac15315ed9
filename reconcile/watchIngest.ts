import { recordIngestCheck } from "../db/ingestWatch.ts";
import { BLOCK_ARRIVAL_MARGIN_MS } from "../rails/blockArrival.ts";
import { chainFor, ingests, type RailContext } from "../rails/index.ts";

/**
 * The worker's periodic look at each chain's ingest against the chain's own head (run
 * by `recheck`). More than INDEXER_MAX_LAG_BLOCKS behind, a node that cannot be read, or
 * one stuck at an old block (its newest older than NODE_STALE_AFTER_SECONDS, on a chain
 * that is not local: ingest at such a head proves nothing of the blocks since) is a
 * stall, dated from the ingest's evidence horizon (when ingest was last current, and no
 * later than the stuck block):
 * open payments there do not expire while it lasts, and their expiry is extended by its
 * length when it ends. Standing at the head records that every block until now has been
 * read (expiry on a quiet chain). A chain its ingest has never reached is left alone.
 * Safe to run concurrently and twice (`recordIngestCheck`).
 */
export async function watchIngest(ctx: RailContext, now: Date = new Date()): Promise<void> {
  const { config, db, logger } = ctx;
  const maxLag = BigInt(config.indexer.maxLagBlocks);
  const merged = <T>(maps: Map<string, T>[]) => new Map(maps.flatMap((m) => [...m]));
  const [indexed, horizons] = await Promise.all([
    Promise.all(ingests().map((ingest) => ingest.indexedHeads(ctx))).then(merged),
    Promise.all(ingests().map((ingest) => ingest.evidenceHorizons(ctx))).then(merged),
  ]);
  await Promise.all(
    config.networks.map(async (network) => {
      const chain = network.enabled ? chainFor(network) : undefined;
      const ingested = indexed.get(network.chainId);
      if (!chain || ingested === undefined) return;
      const head = await chain.chainHead(network, config.rpcTimeoutMs).catch(() => null);
      const timed = head !== null && !network.isLocal && chain.headTime !== undefined;
      const headAt = timed ? await chain.headTime!(network, head, config.rpcTimeoutMs).catch(() => null) : null;
      // The head's time decides how far ingest is current (and whether the node is stuck):
      // unread, this check can tell nothing — taken as "current now", it would vouch for blocks
      // a node behind has not received, and that record only ever moves forward.
      if (timed && headAt === null) {
        logger.warn({ network: network.shortName }, "could not read the chain head's time; this ingest check is skipped");
        return;
      }
      const stuck = headAt !== null && now.getTime() - headAt.getTime() > config.indexer.nodeStaleAfterMs;
      const lag = head === null || stuck ? null : head > ingested ? head - ingested : 0n;
      const horizon = horizons.get(network.chainId) ?? null;
      const currentUntil = stuck && (!horizon || headAt < horizon) ? headAt : horizon;
      // At the head of a node whose newest block is older than blocks take to arrive, ingest is
      // current up to that block only (the node is behind, though not yet stuck): counted from now,
      // money paid in the blocks the node has not received would meet `payment.expired`.
      const caughtUpAt = headAt !== null && headAt.getTime() + BLOCK_ARRIVAL_MARGIN_MS < now.getTime() ? new Date(headAt.getTime() + BLOCK_ARRIVAL_MARGIN_MS) : now;
      const result = await recordIngestCheck(db, { chainId: network.chainId, at: now, lag, maxLag, currentUntil, caughtUpAt });
      const fields = { network: network.shortName, lag: lag?.toString() ?? null, ingested: ingested.toString() };
      if (result.opened && stuck) {
        const seconds = Math.round((now.getTime() - headAt.getTime()) / 1000);
        logger.warn({ ...fields, head: head!.toString(), headAgeSeconds: seconds }, "the chain's node is stuck at an old block: expiry of its open payments is held until it moves");
      } else if (result.opened) logger.warn(fields, "ingest fell behind the chain: expiry of its open payments is held until it catches up");
      if (result.closed) {
        const seconds = Math.round((now.getTime() - result.closed.since.getTime()) / 1000);
        logger.info({ ...fields, stalledSeconds: seconds, extended: result.closed.extended.length }, "ingest caught up: open payments' expiry extended by the time it was behind");
      }
    }),
  );
}

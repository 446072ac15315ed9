import type { Config, Network } from "../../../config/index.ts";
import type { Logger } from "../../../config/logger.ts";
import type { Db } from "../../../db/client.ts";
import { createBatcher } from "../../../domain/batcher.ts";
import { solanaConnection } from "../connection.ts";
import { rpcUrlsOf, wsUrlsOf } from "../../rpcRotation/registry.ts";
import { recordEvidenceThrough } from "../readModel/ingestHeads.ts";
import { recordAddressEvidence } from "./addressScans.ts";
import { paymentsToWatch } from "../readModel/watchList.ts";
import { watchOf, type PaymentWatch } from "../watchedAccount.ts";
import { advanceFinality } from "./advanceFinality.ts";
import { countSolanaCredits, watchSolanaSubscriber } from "./metrics.ts";
import type { FoundBy } from "./recordCredits.ts";
import { scanAddresses, type ScanRequest, type ScanResult } from "./scanAddresses.ts";
import { startWebsocketWatch, type WebsocketWatch } from "./websocketWatch.ts";

/**
 * Watched addresses scanned together (`scanAddresses`: one listing each, then their
 * transactions in one JSON-RPC batch and their credits in one database transaction), and
 * such passes under way at once: a burst of notifications gathers behind them.
 */
const SCANS_PER_BATCH = 100;
const BATCHES_AT_ONCE = 4;

export type ChainSubscriberOptions = {
  config: Config;
  db: Db;
  logger: Logger;
  network: Network;
  /** Postgres channel announcing new evidence (reconciliation listens on it). */
  channel: string;
  /** Follow the websocket (default true); the poller alone when false. */
  websocket?: boolean;
  /** Called with the addresses the subscriber watches after each refresh (Helius registration). */
  onWatched?: (addresses: string[]) => void;
};

/**
 * Ingest of one Solana network. Three things make it look at a watched address: a
 * websocket notification, a Helius webhook naming it, and the poll over the watched
 * addresses every `pollIntervalMs` (the backstop that never misses: the others only
 * prompt the same scan). Scans of one address never overlap, and a prompt during a scan
 * gives exactly one more. Every `headIntervalMs` the finalized watermark moves on.
 *
 * Accounts of payments open, closed within `everyPollAfterCloseMs` or moving money out
 * are scanned on every poll and followed over the websocket; the rest of the watched ones
 * (late money only: days of a busy merchant's closed payments, hundreds of times the open
 * ones) are scanned by the poll at most every `latePollIntervalMs`, and a webhook naming one
 * still scans it at once. A scan lists everything since the address's last one, so the
 * slower pace delays late money, never drops it.
 */
export function startChainSubscriber(options: ChainSubscriberOptions) {
  const { config, db, network, channel } = options;
  const logger = options.logger.child({ chain: network.shortName });
  const connection = solanaConnection(network, "confirmed", 20_000);
  const deps = { db, connection, chainId: network.chainId, channel };
  let watches = new Map<string, PaymentWatch>();
  /** Watched scan addresses of payments closed a while ago (late money only). */
  let lateOnly = new Set<string>();
  /** When the poll last scanned the late-only addresses (0: never). */
  let lateScannedAt = 0;
  /** Addresses a webhook or notification may name (scan address, deposit key) → scan address. */
  let aliases = new Map<string, string>();
  const running = new Map<string, Promise<boolean>>();
  const again = new Map<string, FoundBy>();
  const found: Record<FoundBy, number> = { poll: 0, websocket: 0, webhook: 0, lookup: 0, submission: 0, replay: 0 };
  let stopped = false;
  /** The newest slot a poll read: every scan lists signatures from a node at least there (the poll vouches for it). */
  let polledSlot: number | undefined;
  const scans = createBatcher<ScanRequest, ScanResult>((requests) => scanAddresses(deps, requests, polledSlot), { maxInFlight: BATCHES_AT_ONCE, maxBatch: SCANS_PER_BATCH });

  const ws: WebsocketWatch | null =
    options.websocket === false
      ? null
      : startWebsocketWatch({
          // Each WS_URL_… item in turn, else each provider's default socket (a copy given another rpcUrl keeps its own).
          endpoints: network.wsUrl ? wsUrlsOf(network).map((wsUrl) => ({ rpcUrl: network.rpcUrl!, wsUrl })) : rpcUrlsOf(network).map((rpcUrl) => ({ rpcUrl, wsUrl: null })),
          staleMs: config.solana.wsStaleMs,
          logger,
          onActivity: (address) => void scan(address, "websocket"),
          onReconnect: () => void poll(),
        });

  /**
   * Scans one watched address now (coalesced: never two at once for one address; a
   * prompt during a scan gives one more, and the promise is that last scan's). True when
   * the last scan read everything listed at the address (no error, nothing left for later).
   */
  function scan(address: string, foundBy: FoundBy): Promise<boolean> {
    const target = aliases.get(address) ?? address;
    const watch = watches.get(target);
    if (!watch || stopped) return Promise.resolve(!watch);
    const current = running.get(target);
    if (current) {
      again.set(target, again.get(target) ?? foundBy);
      return current;
    }
    const run = (async () => {
      let by: FoundBy | undefined = foundBy;
      let ok = false;
      while (by && !stopped) {
        again.delete(target);
        try {
          const kind = by;
          const { inserted, complete } = await scans.load({ watch, foundBy: kind });
          found[kind] += inserted;
          countSolanaCredits(network.shortName, kind, inserted);
          // A transaction listed but not served yet, or refused below the watermark, waits for the
          // next pass: until then this address is not read up to the poll's slot.
          ok = complete;
        } catch (error) {
          ok = false;
          logger.warn({ err: error, address: target }, "solana scan failed; the next poll looks again");
        }
        by = again.get(target);
      }
      return ok;
    })().finally(() => running.delete(target));
    running.set(target, run);
    return run;
  }

  /** Payments the last refresh could not watch. */
  let unwatchable = 0;
  let refreshing: Promise<void> | null = null;
  /** The watches of the last refresh, by the payment fields they are derived from. */
  let derived = new Map<string, PaymentWatch>();
  /** Re-reads which payments are watched (coalesced), subscribing new ones and dropping old ones. */
  function refreshWatches(): Promise<void> {
    refreshing ??= readWatches().finally(() => (refreshing = null));
    return refreshing;
  }

  async function readWatches(): Promise<void> {
    const payments = await paymentsToWatch(db, network.chainId, { afterCloseMs: config.solana.watchAfterCloseMs, everyPollAfterCloseMs: config.solana.everyPollAfterCloseMs });
    const next = new Map<string, PaymentWatch>();
    const nextAliases = new Map<string, string>();
    const recentScans = new Set<string>();
    const nextDerived = new Map<string, PaymentWatch>();
    let notWatched = 0;
    for (const p of payments) {
      try {
        // Deriving a token account costs about a millisecond (curve checks): a thousand watched payments, re-read every second, kept their watches.
        const key = `${p.id}|${p.kind}|${p.receiveAddress}|${p.merchantWallet}|${p.tokenAddress}`;
        const watch = derived.get(key) ?? watchOf(network, p);
        nextDerived.set(key, watch);
        next.set(watch.scan, watch);
        if (p.recent) recentScans.add(watch.scan);
        if (watch.source === "transfer") nextAliases.set(watch.owner, watch.scan);
      } catch (error) {
        notWatched++;
        logger.warn({ err: error, payment: p.id }, "payment cannot be watched (its token left the network's configuration?); the chain's evidence horizon stays until it can");
      }
    }
    // An address two payments share is recent if either is.
    const nextLate = new Set([...next.keys()].filter((scan) => !recentScans.has(scan)));
    unwatchable = notWatched;
    derived = nextDerived;
    watches = next;
    aliases = nextAliases;
    lateOnly = nextLate;
    ws?.sync([...next.keys()].filter((address) => !nextLate.has(address)));
    options.onWatched?.([...next.keys(), ...nextAliases.keys()]);
  }

  /** Accounts of open (or just closed) payments whose last poll scan failed: their payments' expiry is held. */
  let held = 0;
  let polling: Promise<void> | null = null;
  /**
   * Refreshes the watch list and scans every watched address (the backstop). Each open
   * payment's account whose scan read everything is recorded through the block time of the
   * slot read first: its own evidence horizon, which its expiry waits for. The chain's
   * horizon moves too, unless a payment could not be watched at all.
   */
  function poll(): Promise<void> {
    polling ??= (async () => {
      try {
        const slot = await connection.getSlot("confirmed");
        polledSlot = Math.max(polledSlot ?? 0, slot);
        const blockTime = await connection.getBlockTime(slot).catch(() => null);
        await refreshWatches();
        const startedAt = Date.now();
        const lateDue = startedAt - lateScannedAt >= config.solana.latePollIntervalMs;
        const recent = [...watches.keys()].filter((address) => !lateOnly.has(address));
        const late = lateDue ? [...lateOnly] : [];
        // A late scan that fails is tried at the next late pass (it reads from the address's last
        // signature, so nothing is lost): one failing address must not put every late one back on every poll.
        if (lateDue) lateScannedAt = startedAt;
        const recentWatches = recent.map((address) => watches.get(address)!);
        const [scanned] = await Promise.all([Promise.all(recent.map((address) => scan(address, "poll"))), Promise.all(late.map((address) => scan(address, "poll")))]);
        if (blockTime !== null && !stopped) {
          const through = new Date(blockTime * 1000);
          // Each open payment's account is vouched for alone: one whose scans fail (a reference anyone
          // can spam) holds back only its own payment's expiry, never the chain's.
          await recordAddressEvidence(db, network.chainId, recentWatches.map((w, i) => ({ address: w.scan, paymentId: w.paymentId, complete: scanned[i]! })), through);
          held = scanned.filter((ok) => !ok).length;
          // A payment that could not be watched was not read, and has no account to vouch for: the chain's horizon stays.
          if (unwatchable === 0) await recordEvidenceThrough(db, network.chainId, through);
        }
      } catch (error) {
        logger.warn({ err: error }, "solana poll failed; retrying");
      }
    })().finally(() => (polling = null));
    return polling;
  }

  let ticking: Promise<void> | null = null;
  function tick(): Promise<void> {
    ticking ??= advanceFinality(deps)
      .then(() => undefined)
      .catch((error) => logger.warn({ err: error }, "solana finality check failed; retrying"))
      .finally(() => (ticking = null));
    return ticking;
  }

  const ready = Promise.all([tick(), poll()]).then(() => undefined);
  const pollTimer = setInterval(() => void poll(), config.solana.pollIntervalMs);
  // New payments are subscribed within a second, whatever the poll interval.
  const watchTimer = setInterval(() => void refreshWatches().catch((error) => logger.warn({ err: error }, "solana watch list refresh failed")), Math.min(config.solana.pollIntervalMs, 1_000));
  const tickTimer = setInterval(() => void tick(), config.solana.headIntervalMs);
  const unwatch = watchSolanaSubscriber(network.shortName, () => ({ watched: watches.size, subscriptions: ws?.size() ?? 0, held }));

  return {
    network,
    ready,
    poll,
    tick,
    /** Scans whichever watched addresses are among these (a webhook's). */
    async prompt(addresses: Iterable<string>, foundBy: FoundBy): Promise<void> {
      const named = [...addresses];
      const known = () => named.filter((a) => watches.has(aliases.get(a) ?? a));
      // A payment created since the last refresh is not watched yet: refresh once, then look.
      if (known().length < named.length) await refreshWatches().catch(() => {});
      await Promise.all(known().map((a) => scan(a, foundBy)));
    },
    /** Credits stored so far, by what found them. */
    found: () => ({ ...found }),
    watched: () => watches.size,
    /** Accounts of open (or just closed) payments the last poll could not read through (their expiry is held). */
    held: () => held,
    /** Watched addresses scanned on the late-money pace (closed a while ago). */
    lateOnly: () => lateOnly.size,
    websocket: ws,
    async stop() {
      stopped = true;
      unwatch();
      clearInterval(pollTimer);
      clearInterval(watchTimer);
      clearInterval(tickTimer);
      await ws?.stop();
      await Promise.allSettled([polling, ticking, refreshing, ...running.values()]);
    },
  };
}

export type ChainSubscriber = ReturnType<typeof startChainSubscriber>;

import type { Config } from "../../config/index.ts";
import { bridgeReadHealth } from "../../db/bridgeRequests.ts";
import type { Db } from "../../db/client.ts";
import { heldPaymentsByChain, openPaymentsByChain } from "../../db/heldPayments.ts";
import { openStalls } from "../../db/ingestWatch.ts";
import { revertsAfterCompletion } from "../../db/paymentEvents.ts";
import { transfersInFlight } from "../../db/transfersOut.ts";
import { BRIDGE_STUCK_MS } from "../../domain/bridgeStatus.ts";
import type { ChainStatusService } from "../../rails/chainStatus.ts";
import { chainState } from "./chainState.ts";
import { providerStates } from "../../rails/rpcRotation/registry.ts";
import { redactMessage } from "../../rails/rpcRotation/redactUrl.ts";

/** How far back `/payments/health` reports payments a deep reorg reverted after completion. */
const REVERTS_WINDOW_HOURS = 7 * 24;
/** …and how long such a revert keeps the service `degraded`. */
const REVERTS_DEGRADE_HOURS = 24;
/** A watched bridge request not read for this long (polls come every few seconds, a minute when idle) needs a look. */
const BRIDGE_UNREAD_SECONDS = 300;

/**
 * `GET /payments/health`: per chain, what the operator must act on — reachability and
 * indexer lag (payable or not), the operator's gas money, sweeps/refunds in flight or
 * stuck, and payments a reorg deeper than the required confirmations reverted after they
 * had completed; and bridge requests that could not be read for minutes (their unpaid
 * payments stay `pending` past the deadline meanwhile). `degraded` when any of those needs a look.
 */
export async function serviceHealth(deps: { config: Config; db: Db; chainStatus: ChainStatusService }) {
  const { config, db } = deps;
  const [chains, inFlight, reverts, bridges, held, open, stalls] = await Promise.all([
    deps.chainStatus.statuses(config.networks.filter((n) => n.enabled)),
    transfersInFlight(db),
    revertsAfterCompletion(db, REVERTS_WINDOW_HOURS),
    bridgeReadHealth(db, BRIDGE_UNREAD_SECONDS, BRIDGE_STUCK_MS / 1000),
    heldPaymentsByChain(db),
    openPaymentsByChain(db),
    openStalls(db),
  ]);
  const maxLag = BigInt(config.indexer.maxLagBlocks);
  // A sweep or refund still not final after a few replacement rounds needs a look.
  const stuckAfterSeconds = (3 * config.transfers.replaceAfterMs) / 1000;
  const transfersOf = (chainId: string) => {
    const t = inFlight.get(chainId);
    return { inFlight: t?.inFlight ?? 0, oldestSeconds: t?.oldestSeconds ?? null, stuck: (t?.oldestSeconds ?? 0) > stuckAfterSeconds };
  };
  const revertsOf = (chainId: string) => {
    const r = reverts.get(chainId);
    return { count: r?.count ?? 0, lastAt: r?.lastAt.toISOString() ?? null, recent: r !== undefined && Date.now() - r.lastAt.getTime() < REVERTS_DEGRADE_HOURS * 3_600_000 };
  };
  const healthy =
    bridges.unread === 0 &&
    bridges.stuck === 0 &&
    chains.every((c) => c.payable && (c.operator === null || c.operator.sufficient) && !transfersOf(c.network.chainId).stuck && !revertsOf(c.network.chainId).recent);
  // The client SDK's `checkPaymentSplitterHealth` reads this: per chain with a settlement contract,
  // whether it takes payments now. Left out where no chain has one (there is nothing to report).
  const splitters = chains.filter((c) => c.network.settlementContract !== null);
  const paymentSplitterHealth = {
    status: splitters.every((c) => c.payable && c.rpcReachable) ? "ok" : "degraded",
    contracts: splitters.map((c) => ({
      network: c.network.shortName,
      chainId: c.network.chainId,
      contractAddress: c.network.settlementContract,
      rpcReachable: c.rpcReachable,
      payable: c.payable,
    })),
  };
  return {
    success: true,
    status: healthy ? "ok" : "degraded",
    ...(splitters.length > 0 && { paymentSplitterHealth }),
    chains: chains.map((c) => {
      const { state, since } = chainState(c, maxLag, stalls.get(c.network.chainId));
      const openHere = open.get(c.network.chainId) ?? 0;
      return {
        network: c.network.shortName,
        chainId: c.network.chainId,
        type: c.network.type,
        isTestnet: c.network.isTestnet,
        rpcReachable: c.rpcReachable,
        headBlock: c.headBlock?.toString() ?? null,
        indexedBlock: c.indexedBlock?.toString() ?? null,
        lag: c.lag?.toString() ?? null,
        requiredConfirmations: c.network.requiredConfirmations,
        settlementContract: c.network.settlementContract,
        // Sweeps wait while the operator cannot pay their gas.
        operator: c.operator ? { address: c.operator.address, balance: c.operator.balance.toString(), sufficient: c.operator.sufficient } : null,
        // Sweeps and refunds not yet final; `stuck` when the oldest has waited past three replacement rounds.
        transfers: transfersOf(c.network.chainId),
        // Payments a reorg deeper than the required confirmations reverted after completion (last 7 days; `recent`: last 24 h).
        revertedAfterCompletion: revertsOf(c.network.chainId),
        payable: c.payable,
        // ok, lagging or down, and since when (the worker's stall record); `lag` is how far behind.
        state,
        since,
        openPayments: openHere,
        // Open payments whose expiry waits: all of a chain not ok; on Solana, also those whose own account could not be read through.
        heldPayments: state === "ok" ? (held.get(c.network.chainId) ?? 0) : openHere,
        // The RPC providers this chain uses (scheme and host only: keys live in URLs) and why one was dropped.
        providers: providerStates(c.network).map((p) => ({
          provider: p.provider,
          inUse: p.inUse,
          reason: p.reason,
          detail: p.detail,
          head: p.head?.toString() ?? null,
          since: p.since?.toISOString() ?? null,
        })),
        error: c.error === null ? null : redactMessage(c.error),
      };
    }),
    // Cross-chain requests still watched; `unread`: not read successfully for 5 minutes; `stuck`: carrying money, unchanged for 2 hours.
    bridges,
  };
}

import type { Config } from "../config/index.ts";
import type { Network } from "../config/types.ts";
import type { Db } from "../db/client.ts";
import { createLogger } from "../config/logger.ts";
import { chainFor, ingests, methodFor } from "./registry.ts";
import type { OperatorStatus } from "./types.ts";

export type ChainStatus = {
  network: Network;
  rpcReachable: boolean;
  headBlock: bigint | null;
  indexedBlock: bigint | null;
  /** Blocks the indexer is behind the head; null when either is unknown. */
  lag: bigint | null;
  /** Enabled, reachable and indexed to within the allowed lag: payments can be accepted. */
  payable: boolean;
  error: string | null;
  /** The operator's native balance (pays sweep gas), and whether it covers a sweep now. */
  operator: OperatorStatus | null;
};

/**
 * Live chain health for the catalogue and health endpoints, asked of each network's
 * rail. Heads are cached for a short time so a busy checkout page cannot turn into an
 * RPC flood; concurrent callers share one in-flight request.
 */
export function createChainStatusService(config: Config, db: Db, options: { cacheMs?: number } = {}) {
  const cacheMs = options.cacheMs ?? 1_000;
  const heads = new Map<string, { at: number; value: Promise<{ head: bigint | null; error: string | null }> }>();
  const ctx = { config, db, logger: createLogger({ level: "silent" }) };

  function head(network: Network) {
    const cached = heads.get(network.id);
    if (cached && Date.now() - cached.at < cacheMs) return cached.value;
    const value = chainFor(network)!.chainHead(network, config.rpcTimeoutMs).then(
      (head) => ({ head, error: null }),
      (error: Error) => ({ head: null, error: error.message.split("\n")[0] ?? "unreachable" }),
    );
    heads.set(network.id, { at: Date.now(), value });
    return value;
  }

  /** Each ingest's indexed heads, merged (chain ids are unique across network types). */
  async function indexedHeads(): Promise<Map<string, bigint>> {
    const maps = await Promise.all(ingests().map((ingest) => ingest.indexedHeads(ctx)));
    return new Map(maps.flatMap((m) => [...m]));
  }

  async function statuses(networks: Network[]): Promise<ChainStatus[]> {
    const served = networks.filter((n) => n.enabled && chainFor(n));
    const [indexed, operators, ...heads] = await Promise.all([
      indexedHeads(),
      Promise.all(served.map((n) => chainFor(n)!.operatorStatus(config, n, config.rpcTimeoutMs))),
      ...served.map(head),
    ]);
    const byId = new Map(served.map((n, i) => [n.id, { head: heads[i]!, operator: operators[i] ?? null }]));
    return networks.map((network) => {
      const live = byId.get(network.id);
      if (!live) {
        const error = network.enabled ? `payments on ${network.name} are not available yet` : "disabled: no RPC URL configured";
        return { network, rpcReachable: false, headBlock: null, indexedBlock: null, lag: null, payable: false, error, operator: null };
      }
      const h = live.head;
      const indexedBlock = indexed.get(network.chainId) ?? null;
      const maxLag = BigInt(config.indexer.maxLagBlocks);
      const lag = h.head !== null && indexedBlock !== null ? (h.head > indexedBlock ? h.head - indexedBlock : 0n) : null;
      // An index far ahead of the head belongs to another chain (a reset devnet, a wrong RPC).
      const ahead = h.head !== null && indexedBlock !== null && indexedBlock > h.head + maxLag;
      const contractsReady = methodFor(network, "payment")?.supports(network) === true;
      const payable = h.head !== null && lag !== null && lag <= maxLag && !ahead && contractsReady;
      const error =
        h.error ??
        (!contractsReady
          ? "settlement contracts not configured"
          : indexedBlock === null
            ? "not indexed yet"
            : ahead
              ? `indexed block ${indexedBlock} is ahead of the chain head ${h.head}`
              : payable
                ? null
                : `indexer ${lag} blocks behind`);
      return { network, rpcReachable: h.head !== null, headBlock: h.head, indexedBlock, lag, payable, error, operator: live.operator };
    });
  }

  return { statuses };
}

export type ChainStatusService = ReturnType<typeof createChainStatusService>;

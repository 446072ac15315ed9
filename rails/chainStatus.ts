import type { Config } from "../config/index.ts";
import type { Network } from "../config/types.ts";
import type { Db } from "../db/client.ts";
import { indexedBlocks } from "../db/indexerProgress.ts";
import { getChainHead } from "./evm/chainHead.ts";
import { evmClient } from "./evm/client.ts";
import { operatorAccount } from "./evm/operator.ts";
import { SWEEP_GAS } from "./evm/settlement/index.ts";

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
  operator: { address: string; balance: bigint; sufficient: boolean } | null;
};

/**
 * Live chain health for the catalogue and health endpoints. Heads are cached for a
 * short time so a busy checkout page cannot turn into an RPC flood; concurrent
 * callers share one in-flight request.
 */
export function createChainStatusService(config: Config, db: Db, options: { cacheMs?: number } = {}) {
  const cacheMs = options.cacheMs ?? 1_000;
  const heads = new Map<string, { at: number; value: Promise<{ head: bigint | null; error: string | null }> }>();

  function head(network: Network) {
    const cached = heads.get(network.id);
    if (cached && Date.now() - cached.at < cacheMs) return cached.value;
    const value = getChainHead(network, config.rpcTimeoutMs).then(
      (head) => ({ head, error: null }),
      (error: Error) => ({ head: null, error: error.message.split("\n")[0] ?? "unreachable" }),
    );
    heads.set(network.id, { at: Date.now(), value });
    return value;
  }

  const operator = operatorAccount(config);
  async function operatorStatus(network: Network): Promise<ChainStatus["operator"]> {
    if (!operator || network.type !== "evm" || !network.forwarderFactory) return null;
    try {
      const client = evmClient(network, config.rpcTimeoutMs);
      const [balance, gasPrice] = await Promise.all([client.getBalance({ address: operator.address }), client.getGasPrice()]);
      return { address: operator.address, balance, sufficient: balance >= SWEEP_GAS * gasPrice };
    } catch {
      return null;
    }
  }

  async function statuses(networks: Network[]): Promise<ChainStatus[]> {
    const enabled = networks.filter((n) => n.enabled);
    const [indexed, operators, ...heads] = await Promise.all([
      indexedBlocks(db, config.indexer.viewsSchema),
      Promise.all(enabled.map(operatorStatus)),
      ...enabled.map(head),
    ]);
    const byId = new Map(enabled.map((n, i) => [n.id, heads[i]!]));
    const operatorById = new Map(enabled.map((n, i) => [n.id, operators[i] ?? null]));
    return networks.map((network) => {
      const h = byId.get(network.id);
      if (!h) {
        return { network, rpcReachable: false, headBlock: null, indexedBlock: null, lag: null, payable: false, error: "disabled: no RPC URL configured", operator: null };
      }
      const indexedBlock = network.type === "evm" ? (indexed.get(network.chainId) ?? null) : null;
      const maxLag = BigInt(config.indexer.maxLagBlocks);
      const lag = h.head !== null && indexedBlock !== null ? (h.head > indexedBlock ? h.head - indexedBlock : 0n) : null;
      // An index far ahead of the head belongs to another chain (a reset devnet, a wrong RPC).
      const ahead = h.head !== null && indexedBlock !== null && indexedBlock > h.head + maxLag;
      const contractsReady = network.type !== "evm" || (network.settlementContract !== null && network.forwarderFactory !== null);
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
      return { network, rpcReachable: h.head !== null, headBlock: h.head, indexedBlock, lag, payable, error, operator: operatorById.get(network.id) ?? null };
    });
  }

  return { statuses };
}

export type ChainStatusService = ReturnType<typeof createChainStatusService>;

import { Gauge } from "prom-client";
import type { Network } from "../config/types.ts";
import { registry } from "../metrics/registry.ts";
import type { ChainStatus, ChainStatusService } from "./chainStatus.ts";

type Source = { chainStatus: ChainStatusService; networks: Network[] };
let source: Source | null = null;

/** One round of chain statuses per scrape (each asks the RPC for its head and the database for the indexed block), shared by the gauges. */
let pending: Promise<ChainStatus[]> | null = null;
function statusesOnce(): Promise<ChainStatus[]> {
  if (!source) return Promise.resolve([]);
  pending ??= source.chainStatus.statuses(source.networks).finally(() => queueMicrotask(() => (pending = null)));
  return pending;
}

/** A gauge per network from its status; a value of null (unknown: RPC down, nothing indexed) is left out, never reported as 0. */
function chainGauge(name: string, help: string, value: (s: ChainStatus) => number | bigint | null) {
  return new Gauge({
    name,
    help,
    labelNames: ["network", "chain_id"] as const,
    registers: [registry],
    async collect() {
      // The database unreachable: the series are absent from this scrape, the rest of the page still answers.
      const statuses = await statusesOnce().catch(() => []);
      this.reset();
      for (const s of statuses) {
        const v = value(s);
        if (v !== null) this.set({ network: s.network.shortName, chain_id: s.network.chainId }, Number(v));
      }
    },
  });
}

chainGauge("stablepay_indexer_lag_blocks", "Blocks (slots) the indexer is behind the chain head; absent while either is unknown.", (s) => s.lag);
chainGauge("stablepay_chain_head_block", "The chain's head block (slot) as its RPC reports it.", (s) => s.headBlock);
chainGauge("stablepay_indexed_block", "The last block (slot) the indexer has committed.", (s) => s.indexedBlock);
chainGauge("stablepay_chain_rpc_up", "1 when the network's RPC answered within RPC_TIMEOUT_MS, else 0.", (s) => (s.rpcReachable ? 1 : 0));
chainGauge("stablepay_chain_payable", "1 when the network can accept payments now (reachable, indexed within INDEXER_MAX_LAG_BLOCKS, contracts deployed), else 0.", (s) => (s.payable ? 1 : 0));

/** Reports these networks' indexer lag and payability from now on (the indexer role does); the returned function stops it. */
export function watchChains(chainStatus: ChainStatusService, networks: Network[]): () => void {
  source = { chainStatus, networks };
  return () => {
    if (source?.chainStatus === chainStatus) source = null;
  };
}

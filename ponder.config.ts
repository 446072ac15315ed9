import { buildConfig } from "./plugins/config.ts";
import { createConfig } from "ponder";

import { indexedEvmNetworks } from "./config/indexer.ts";
import { paymentSettlementAbi } from "./contracts/artifacts/PaymentSettlement.ts";
import { evmTransport } from "./rails/evm/transport.ts";
import { rpcUrlsOf } from "./rails/rpcRotation/registry.ts";

// Built from the same validated configuration as every other role.
const config = buildConfig(process.env);
const networks = indexedEvmNetworks(config, process.env);

export default createConfig({
  ordering: "multichain",
  chains: Object.fromEntries(
    networks.map((n) => [
      n.shortName,
      {
        id: Number(n.chainId),
        // Several URLs: viem's fallback guarded by the chain's rotation (a wrong chain id, a stuck
        // or lagging head take a node out), not Ponder's string[] which balances over every node alike.
        rpc: rpcUrlsOf(n).length > 1 ? evmTransport(n, rpcUrlsOf(n), { timeoutMs: 10_000 }) : n.rpcUrl,
        // A websocket makes detection ~16 ms instead of ~525 ms at Ponder's 1 s polling.
        ...(n.wsUrl ? { ws: n.wsUrl } : {}),
        pollingInterval: n.isLocal ? 100 : 1_000,
        // No sync-store copy of finalized blocks: the indexed rows are all the service keeps of a
        // chain (and local chains are recreated on every start, so a cache of them would lie).
        disableCache: true,
      },
    ]),
  ),
  // Stablecoin transfers are not a contract source: on mainnets that would be every transfer of
  // every user. A block handler asks the node for transfers into watched addresses only.
  blocks: {
    WatchedTransfers: {
      chain: Object.fromEntries(networks.map((n) => [n.shortName, { startBlock: n.startBlock, interval: 1 }])),
    },
    // Addresses of payments expired a while ago: asked for once per range of blocks (rails/evm/ingest/).
    LateTransfers: {
      chain: Object.fromEntries(networks.map((n) => [n.shortName, { startBlock: n.startBlock, interval: config.indexer.lateScanBlocks }])),
    },
  },
  contracts: {
    PaymentSettlement: {
      abi: paymentSettlementAbi,
      chain: Object.fromEntries(
        networks
          .filter((n) => n.settlementContract !== null)
          .map((n) => [n.shortName, { address: n.settlementContract as `0x${string}`, startBlock: n.startBlock }]),
      ),
    },
  },
});

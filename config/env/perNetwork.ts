/**
 * The variables read by pattern, one per network (`config/networks.ts`, `config/bridge.ts`,
 * `config/indexer.ts`): not in the zod schema, whose keys are fixed, but documented beside it.
 * `<SHORT_NAME>` is the network's short name in upper case with `-` as `_` (`BASE_SEPOLIA`);
 * where both forms are set the chain id's wins.
 */
export type PerNetworkVariable = { names: string[]; section: string; description: string };

/** The per-network variables `buildNetworks` reads: each kind under `<KIND>_<chainId>` (EVM) or `<KIND>_<SHORT_NAME>`. */
export const NETWORK_ENDPOINT_KINDS = ["RPC_URL", "WS_URL", "SETTLEMENT_CONTRACT", "FORWARDER_FACTORY"] as const;
export type NetworkEndpointKind = (typeof NETWORK_ENDPOINT_KINDS)[number];

const networks = "Networks and indexing";

export const perNetworkVariables: PerNetworkVariable[] = [
  {
    names: ["RPC_URL_<chainId>", "RPC_URL_<SHORT_NAME>"],
    section: networks,
    description:
      "The network's node (EVM: http(s) or ws(s); Solana: http(s)), or several providers separated by commas, the preferred first: one that errors, is stuck, lags or answers for another chain is dropped until it recovers (docs/decisions/rpc-failover.md). A network is served only where it is set (in the environment or a NETWORKS_FILE entry's `rpcUrl`). Often carries a provider's API key: logs, health and metrics show only its host. Read by: every role, cli.",
  },
  {
    names: ["WS_URL_<chainId>", "WS_URL_<SHORT_NAME>"],
    section: networks,
    description: "The network's websocket endpoint (ws or wss), or a comma-separated list whose first is used: new heads and, on Solana, account notifications without polling. Read by: indexer, solana.",
  },
  {
    names: ["SETTLEMENT_CONTRACT_<chainId>", "SETTLEMENT_CONTRACT_<SHORT_NAME>"],
    section: networks,
    description: "EVM: the address of the PaymentSettlement contract deployed with the intent signer as its operator and the operator (OPERATOR_PRIVATE_KEY's address) as its settler. Unset: no direct contract payments and no x402 payments on that chain. Read by: every role.",
  },
  {
    names: ["FORWARDER_FACTORY_<chainId>", "FORWARDER_FACTORY_<SHORT_NAME>"],
    section: networks,
    description: "EVM: the address of the ForwarderFactory deployed with the operator as its operator. Unset: no deposit addresses on that chain. Read by: every role.",
  },
  {
    names: ["START_BLOCK_<chainId>"],
    section: networks,
    description:
      "EVM: the block the indexer starts reading the chain at (a block before the first payment, e.g. the head when you deploy). Required in production for every indexed chain; unset elsewhere: local chains from 0, others from the latest block. Read by: indexer.",
  },
  {
    names: ["BRIDGE_REFUND_ADDRESS_<chainId>", "BRIDGE_REFUND_ADDRESS_<SHORT_NAME>"],
    section: "Cross-chain payments",
    description: "EVM: where Relay refunds a customer on that origin chain, or `none`: a payment from there could never be refunded, so Relay payments from it are not taken. Unset: BRIDGE_REFUND_ADDRESS. Read by: api.",
  },
];

import type { NetworkDefinition, NetworkType } from "./types.ts";

/**
 * What configuration knows of a network type, declared in its rail's folder
 * (`rails/<name>/networkType.ts`) and handed in by the registration (`plugins/`): how its
 * addresses are written, its built-in networks, and how its networks' variables are checked.
 */
export type NetworkTypeSpec = {
  type: NetworkType;
  /** An address's canonical form, or null when it is not one; `description` for errors, `name` for short ones ("EVM"). */
  address: { normalize(address: string): string | null; description: string; name: string };
  /** Its real networks and their stablecoins (the catalogue), checked at start as a networks file's are. */
  catalogue: readonly NetworkDefinition[];
  /** Whether its per-network variables may also name the chain id (`RPC_URL_8453`), tried before the short name. */
  variablesByChainId: boolean;
  /** The protocols its RPC URLs may use. */
  rpcProtocols: readonly string[];
  /** Why `chainId` cannot be one of its networks' (the end of a sentence), or null. */
  chainIdProblem?(chainId: string): string | null;
  /** Whether its networks carry the service's contracts (SETTLEMENT_CONTRACT, FORWARDER_FACTORY). */
  contracts: boolean;
  /** Whether its tokens name the program that owns them (`tokenProgram`). */
  tokenPrograms: boolean;
  /** Whether bridges run between its networks (cross-chain payments; BRIDGE_REFUND_ADDRESS_<network> is one of its addresses). */
  bridged: boolean;
  /** Whether the indexer (Ponder's root, `indexer/`) follows its networks, one Ponder per chain. */
  indexed: boolean;
};

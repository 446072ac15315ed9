import type { Mode } from "../domain/mode.ts";
import type { NetworkType } from "../domain/networkType.ts";

export type { Mode, NetworkType };

/** A stablecoin as the service knows it on one network. */
export type Token = {
  symbol: string;
  name: string;
  /** EVM: checksummed contract address. Solana: mint address (base58). */
  address: string;
  decimals: number;
  /** Solana: the program that owns the mint (USDC and USDT: the classic Token program). */
  tokenProgram?: "spl-token" | "token-2022";
};

/** One network of the catalogue, after the environment has been applied. */
export type Network = {
  /** Stable uuid (v5 of `<type>:<chainId>`), the same on every deployment. */
  id: string;
  name: string;
  /** The value a merchant sends as `network`. */
  shortName: string;
  /** EVM: decimal chain id. Solana: the CAIP-2 genesis reference. */
  chainId: string;
  type: NetworkType;
  logo: string | null;
  explorerUrl: string | null;
  isTestnet: boolean;
  /** Blocks (EVM) or slots (Solana) after the credited block before a payment is final. */
  requiredConfirmations: number;
  /**
   * Blocks after which the chain cannot reorganize a block any more, when the operator
   * fixes it; null: ask the node for its `finalized` block. Completed payments are
   * re-checked, and deposits are swept, only once their block is final.
   */
  finalityBlocks: number | null;
  tokens: Token[];
  /** The preferred (first) of `rpcUrls`. */
  rpcUrl: string | null;
  /** Every RPC provider configured, in the operator's order (`RPC_URL_<id>=https://a,https://b`). */
  rpcUrls: string[];
  wsUrl: string | null;
  wsUrls: string[];
  /** Enabled when an RPC URL is configured and the operator did not disable it. */
  enabled: boolean;
  /** Local development chain (anvil), never offered in production. */
  isLocal: boolean;
  /** Brand colour of the generated logo. */
  color: string;
  /** PaymentSettlement contract (EVM), where deployed. */
  settlementContract: string | null;
  /** ForwarderFactory for counterfactual deposit addresses (EVM), where deployed. */
  forwarderFactory: string | null;
};

/** A network as written in the catalogue, before env (RPC URLs, enablement) is applied. */
export type NetworkDefinition = Omit<Network, "id" | "rpcUrl" | "rpcUrls" | "wsUrl" | "wsUrls" | "enabled" | "logo" | "settlementContract" | "forwarderFactory" | "finalityBlocks"> & { finalityBlocks?: number | null };

export const modeOfNetwork = (network: Pick<Network, "isTestnet">): Mode =>
  network.isTestnet ? "test" : "live";

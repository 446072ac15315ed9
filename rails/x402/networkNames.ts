import { EVM_NETWORK_CHAIN_ID_MAP as v1ChainIds } from "@x402/evm/v1";
import type { Config, Network } from "../../config/index.ts";

/**
 * The enabled networks the facilitator serves, with an RPC: EVM ones with a settlement
 * contract (an EIP-3009 `exact` authorization to it, which it passes on less the service fee)
 * and Solana ones (`exact`: an SPL transfer the operator co-signs as fee payer).
 */
export const x402Networks = (config: Config): Network[] =>
  config.networks.filter((n) => n.enabled && n.rpcUrl && ((n.type === "evm" && n.settlementContract) || n.type === "solana"));

/**
 * The x402 v1 name of a network (`base-sepolia`, `solana-devnet`), when x402 v1 has one; local
 * chains have none. Solana's names load with x402's Solana package, only for a Solana network.
 */
export function v1NetworkName(network: Pick<Network, "type" | "chainId">): string | null {
  if (network.type === "solana") {
    const { V1_TO_V2_NETWORK_MAP } = require("@x402/svm") as typeof import("@x402/svm");
    return Object.entries(V1_TO_V2_NETWORK_MAP).find(([, name]) => name === x402Name(network))?.[0] ?? null;
  }
  return Object.entries(v1ChainIds).find(([, id]) => id === Number(network.chainId))?.[0] ?? null;
}

/**
 * A network's x402 v2 name (CAIP-2): `eip155:<chain id>`; on Solana `solana:<genesis hash>`,
 * the hash cut to CAIP-2's 32 characters (the catalogue keeps either the full hash or that prefix).
 */
export const x402Name = (network: Pick<Network, "type" | "chainId">): string =>
  network.type === "solana" ? `solana:${network.chainId.slice(0, 32)}` : `eip155:${network.chainId}`;

/** Every name the facilitator knows a network by: its v2 name and x402 v1's name, where it has one. */
export const x402Names = (network: Pick<Network, "type" | "chainId">): string[] => {
  const v1 = v1NetworkName(network);
  return v1 ? [x402Name(network), v1] : [x402Name(network)];
};

/** The served network an x402 network name (v2 or v1) names. */
export const networkNamed = (config: Config, name: unknown): Network | undefined =>
  typeof name === "string" ? x402Networks(config).find((n) => x402Names(n).includes(name)) : undefined;

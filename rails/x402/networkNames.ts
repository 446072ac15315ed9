import { EVM_NETWORK_CHAIN_ID_MAP as v1ChainIds } from "@x402/evm/v1";
import type { Config, Network } from "../../config/index.ts";

/**
 * The enabled networks the facilitator serves, with an RPC: EVM ones with a settlement
 * contract (an EIP-3009 `exact` authorization to it, which it passes on less the service fee)
 * and Solana ones (`exact`: an SPL transfer the operator co-signs as fee payer).
 */
export const x402Networks = (config: Config): Network[] =>
  config.networks.filter((n) => n.enabled && n.rpcUrl && ((n.type === "evm" && n.settlementContract) || n.type === "solana"));

/** The x402 v1 name of an EVM chain (`base-sepolia`), when x402 v1 has one; local chains have none. */
export function v1NetworkName(chainId: string): string | null {
  return Object.entries(v1ChainIds).find(([, id]) => id === Number(chainId))?.[0] ?? null;
}

/**
 * A network's x402 v2 name (CAIP-2): `eip155:<chain id>`; on Solana `solana:<genesis hash>`,
 * the hash cut to CAIP-2's 32 characters (the catalogue keeps either the full hash or that prefix).
 */
export const x402Name = (network: Pick<Network, "type" | "chainId">): string =>
  network.type === "solana" ? `solana:${network.chainId.slice(0, 32)}` : `eip155:${network.chainId}`;

/** Every name the facilitator knows a network by: its v2 name and, on EVM, x402 v1's name (v1 is not served on Solana). */
export const x402Names = (network: Pick<Network, "type" | "chainId">): string[] => {
  const v1 = network.type === "evm" ? v1NetworkName(network.chainId) : null;
  return v1 ? [x402Name(network), v1] : [x402Name(network)];
};

/** The served network an x402 network name (v2 or v1) names. */
export const networkNamed = (config: Config, name: unknown): Network | undefined =>
  typeof name === "string" ? x402Networks(config).find((n) => x402Names(n).includes(name)) : undefined;

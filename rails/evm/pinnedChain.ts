import { type Chain, defineChain } from "viem";

/**
 * A viem Chain only to pin the chain id: a wallet client checks it against the node's before
 * sending, so one pointed at a node of another chain fails instead of signing there.
 */
export const pinnedChain = (chainId: number, name: string, rpcUrl: string): Chain =>
  defineChain({ id: chainId, name, nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });

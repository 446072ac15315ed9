import { type Chain, defineChain } from "viem";

/**
 * A viem Chain for a local node (anvil) reachable at `rpcUrl`. viem checks a wallet's
 * chain id against it before sending, so a client pointed at the wrong node fails fast.
 */
export function localChain(chainId: number, rpcUrl: string, wsUrl?: string): Chain {
  return defineChain({
    id: chainId,
    name: `Local ${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl], ...(wsUrl === undefined ? {} : { webSocket: [wsUrl] }) } },
    testnet: true,
  });
}

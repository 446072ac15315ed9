import { v5 as uuidv5 } from "uuid";
import type { Network, Token } from "../../config/types.ts";

/** The spec's Network resource, field for field. */
export const presentNetwork = (n: Network) => ({
  id: n.id,
  name: n.name,
  shortName: n.shortName,
  chainId: n.chainId,
  type: n.type,
  logo: n.logo,
  explorerUrl: n.explorerUrl,
  isTestnet: n.isTestnet,
});

/** The spec's Stablecoin entry: the token with its Network, so only working pairs are offered. */
export const presentStablecoin = (n: Network, t: Token) => ({
  id: uuidv5(t.symbol, n.id),
  symbol: t.symbol,
  name: t.name,
  contractAddress: t.address,
  decimals: t.decimals,
  Network: { id: n.id, name: n.name, shortName: n.shortName, chainId: n.chainId, type: n.type },
});

export const presentStablecoins = (networks: Network[]) => networks.flatMap((n) => n.tokens.map((t) => presentStablecoin(n, t)));

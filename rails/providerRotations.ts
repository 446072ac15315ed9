import type { Network } from "../config/types.ts";
import { chainFor } from "./registry.ts";
import type { ProviderRotation } from "./rpcRotation/providerRotation.ts";
import { rpcUrlsOf } from "./rpcRotation/registry.ts";

/**
 * The rotation over a network's providers (null: one provider, nothing to rotate), made
 * and probing from now on: its chain's (`ChainPort.providerRotation`).
 */
export async function networkRotation(network: Network): Promise<ProviderRotation | null> {
  const urls = rpcUrlsOf(network);
  const chain = chainFor(network);
  if (urls.length < 2 || !chain) return null;
  return chain.providerRotation(network, urls);
}

import type { Network } from "../config/types.ts";
import { evmRotation } from "./evm/transport.ts";
import type { ProviderRotation } from "./rpcRotation/providerRotation.ts";
import { rpcUrlsOf } from "./rpcRotation/registry.ts";

/**
 * The rotation over a network's providers (null: one provider, nothing to rotate), made
 * and probing from now on. Solana's is loaded on use, as the rest of its rail is.
 */
export async function networkRotation(network: Network): Promise<ProviderRotation | null> {
  const urls = rpcUrlsOf(network);
  if (urls.length < 2) return null;
  if (network.type === "evm") return evmRotation(network, urls);
  const { solanaRotation } = await import("./solana/connection.ts");
  return solanaRotation(network, urls);
}

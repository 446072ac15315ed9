import type { Network } from "../../config/types.ts";
import { ProviderRotation, type ProbeResult, type ProviderState, type RotationLimits } from "./providerRotation.ts";
import { redactUrl } from "./redactUrl.ts";

const rotations = new Map<string, ProviderRotation>();

/**
 * The RPC URLs a reader of `network` uses. `rpcUrl` is the authority: a copy of the
 * network given another `rpcUrl` (a test's proxy, a replay's override) uses that one alone.
 */
export function rpcUrlsOf(network: Pick<Network, "rpcUrl" | "rpcUrls">): string[] {
  if (!network.rpcUrl) return [];
  return network.rpcUrls?.[0] === network.rpcUrl ? network.rpcUrls : [network.rpcUrl];
}

/** The websocket URLs of `network`, by the same rule: `wsUrl` is the authority. */
export function wsUrlsOf(network: Pick<Network, "wsUrl" | "wsUrls">): string[] {
  if (!network.wsUrl) return [];
  return network.wsUrls?.[0] === network.wsUrl ? network.wsUrls : [network.wsUrl];
}

const keyOf = (network: Network, urls: string[]) => `${network.id}|${urls.join(",")}`;

/** The process's rotation over these providers of `network`, made and started on first use; `limits`: how its chain's providers are judged. */
export function rotationFor(network: Network, urls: string[], limits: RotationLimits, probe: (url: string) => () => Promise<ProbeResult>): ProviderRotation {
  const key = keyOf(network, urls);
  let rotation = rotations.get(key);
  if (!rotation) {
    rotation = new ProviderRotation(network, urls.map((url) => ({ url, probe: probe(url) })), limits).start();
    rotations.set(key, rotation);
  }
  return rotation;
}

/** Which providers `network` uses in this process and why one is out; a single provider is always in use. */
export function providerStates(network: Network): ProviderState[] {
  const urls = rpcUrlsOf(network);
  const rotation = rotations.get(keyOf(network, urls));
  if (rotation) return rotation.states();
  return urls.map((url) => ({ provider: redactUrl(url), inUse: true, reason: urls.length === 1 ? "only" : "unchecked", head: null, detail: null, since: null }));
}

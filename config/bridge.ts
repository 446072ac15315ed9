import { normalizeDecimal } from "../domain/decimal.ts";
import type { Env } from "./env.ts";
import type { NetworkTypeSpec } from "./networkTypeSpec.ts";
import type { Network } from "./types.ts";

export type BridgeAdapterName = "relay" | "local";

/** One `origin>destination=adapter` entry of BRIDGE_ROUTES: chain ids or `*`; `adapter` null = no bridge. */
export type BridgeRoute = { origin: string; destination: string; adapter: BridgeAdapterName | null };

/** Cross-chain payments: which bridge serves which route, where refunds go, and each adapter's settings. */
export type BridgeConfig = {
  /** For routes no entry of `routes` matches; null = none. */
  defaultAdapter: BridgeAdapterName | null;
  routes: BridgeRoute[];
  /** Origin chain id → where the bridge refunds there; null = refunds are not possible there (`none`). */
  refundAddresses: Record<string, string | null>;
  /** BRIDGE_REFUND_ADDRESS; when unset the operator's address is used. */
  defaultRefundAddress: string | null;
  pollIntervalMs: number;
  /** `depositLagMs`: how long after a deposit's block Relay is taken to report it (expiry waits for a read that late). */
  relay: { mainnetUrl: string; testnetUrl: string; apiKey: string | null; timeoutMs: number; depositLagMs: number };
  /**
   * The sandbox's own bridge; null unless a route uses it or its relayer key is configured. The
   * key is the relayer role's alone (null in every other role: the API quotes with the relayer's
   * address from its books).
   */
  local: { relayerPrivateKey: `0x${string}` | null; feeBps: number; confirmations: number; pollMs: number } | null;
  /** BRIDGE_LOCAL_NATIVE_USD: USD per whole native coin of the local bridge's chains (a decimal string), for its minimum. */
  localNativeUsd: string;
};

const envKey = (s: string) => s.toUpperCase().replace(/[^A-Z0-9]/g, "_");

/**
 * The bridge settings from the environment, checked against the network catalogue: route
 * entries name known networks, refund addresses are addresses of their network's type (one
 * bridges run between: `NetworkTypeSpec.bridged`), and a route or default using the local
 * bridge needs its relayer key. Throws an Error naming the variable.
 */
export function buildBridgeConfig(
  e: Env,
  env: Record<string, string | undefined>,
  networks: Network[],
  networkTypes: readonly NetworkTypeSpec[],
  options: { relayerKeyRead?: boolean } = {},
): BridgeConfig {
  const chainOf = (name: string, entry: string): string => {
    if (name === "*") return "*";
    const network = networks.find((n) => n.shortName === name || n.chainId === name);
    if (!network) throw new Error(`BRIDGE_ROUTES: "${entry}" names ${name}, which is not a known network (a short name or chain id)`);
    return network.chainId;
  };
  const adapterOf = (name: string, entry: string): BridgeAdapterName | null => {
    if (name === "none") return null;
    if (name === "relay" || name === "local") return name;
    throw new Error(`BRIDGE_ROUTES: "${entry}": the adapter must be relay, local or none`);
  };
  const routes = e.BRIDGE_ROUTES.split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^([^>=\s]+)\s*>\s*([^>=\s]+)\s*=\s*(\S+)$/.exec(entry);
      if (!match) throw new Error(`BRIDGE_ROUTES: "${entry}" is not origin>destination=adapter (e.g. anvil-2>anvil=local, *>*=relay)`);
      return { origin: chainOf(match[1]!, entry), destination: chainOf(match[2]!, entry), adapter: adapterOf(match[3]!, entry) };
    });
  const defaultAdapter = e.BRIDGE_ADAPTER === "none" ? null : e.BRIDGE_ADAPTER;

  const refundAddresses: Record<string, string | null> = {};
  const bridged = new Map(networkTypes.filter((t) => t.bridged).map((t) => [t.type as string, t.address]));
  for (const network of networks) {
    const format = bridged.get(network.type);
    if (!format) continue;
    for (const name of [`BRIDGE_REFUND_ADDRESS_${network.chainId}`, `BRIDGE_REFUND_ADDRESS_${envKey(network.shortName)}`]) {
      const value = env[name]?.trim();
      if (!value) continue;
      if (value.toLowerCase() === "none") refundAddresses[network.chainId] = null;
      else {
        const address = format.normalize(value);
        if (!address) throw new Error(`${name}: must be an ${format.name} address or none`);
        refundAddresses[network.chainId] = address;
      }
      break;
    }
  }

  const usesLocal = defaultAdapter === "local" || routes.some((r) => r.adapter === "local");
  if (usesLocal && !e.BRIDGE_LOCAL_RELAYER_KEY && options.relayerKeyRead !== false) throw new Error("BRIDGE_LOCAL_RELAYER_KEY: required when a bridge route uses the local adapter");
  return {
    defaultAdapter,
    routes,
    refundAddresses,
    defaultRefundAddress: e.BRIDGE_REFUND_ADDRESS ?? null,
    pollIntervalMs: e.BRIDGE_POLL_INTERVAL_MS,
    relay: { mainnetUrl: e.RELAY_API_URL, testnetUrl: e.RELAY_TESTNET_API_URL, apiKey: e.RELAY_API_KEY ?? null, timeoutMs: e.RELAY_TIMEOUT_MS, depositLagMs: e.RELAY_DEPOSIT_LAG_MS },
    local: e.BRIDGE_LOCAL_RELAYER_KEY || usesLocal
      ? {
          relayerPrivateKey: (e.BRIDGE_LOCAL_RELAYER_KEY as `0x${string}` | undefined) ?? null,
          feeBps: e.BRIDGE_LOCAL_FEE_BPS,
          confirmations: e.BRIDGE_LOCAL_CONFIRMATIONS,
          pollMs: e.BRIDGE_LOCAL_POLL_MS,
        }
      : null,
    localNativeUsd: normalizeDecimal(e.BRIDGE_LOCAL_NATIVE_USD)!,
  };
}

/**
 * The bridge serving payments from `origin` to `destination`: the first BRIDGE_ROUTES entry
 * matching both, else BRIDGE_ADAPTER. Null when none does, or the two are the same chain,
 * or one is a testnet and the other not (a bridge never mixes test and real money).
 */
export function bridgeAdapterFor(bridge: BridgeConfig, origin: Network, destination: Network): BridgeAdapterName | null {
  if (origin.chainId === destination.chainId || origin.isTestnet !== destination.isTestnet) return null;
  const matches = (pattern: string, chainId: string) => pattern === "*" || pattern === chainId;
  const route = bridge.routes.find((r) => matches(r.origin, origin.chainId) && matches(r.destination, destination.chainId));
  return route ? route.adapter : bridge.defaultAdapter;
}

import { v5 as uuidv5 } from "uuid";
import type { NetworkEndpointKind } from "./env/perNetwork.ts";
import type { NetworkTypeSpec } from "./networkTypeSpec.ts";
import { networkFileSchema, readNetworksFile, toDefinition, type FileNetworkInput } from "./networksFile.ts";
import type { Network, NetworkDefinition } from "./types.ts";

/** Namespace for network ids: ids are uuid v5 of `<type>:<chainId>`, stable everywhere. */
const NETWORK_ID_NAMESPACE = "2f1f6d2e-6a57-4a8e-9a0e-4d2b8f3c1a10";

export const networkIdOf = (type: string, chainId: string) =>
  uuidv5(`${type}:${chainId}`, NETWORK_ID_NAMESPACE);

const envKey = (s: string) => s.toUpperCase().replace(/[^A-Z0-9]/g, "_");

function endpoint(
  env: Record<string, string | undefined>,
  kind: NetworkEndpointKind,
  def: NetworkDefinition,
  spec: NetworkTypeSpec,
): { name: string; value: string } | null {
  const names = [`${kind}_${envKey(def.shortName)}`];
  if (spec.variablesByChainId) names.unshift(`${kind}_${def.chainId}`);
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return { name, value };
  }
  return null;
}

function checkUrl(name: string, value: string, protocols: string[]): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new Error(`${name}: not a URL`);
  }
  if (!protocols.includes(parsed.protocol)) throw new Error(`${name}: must use ${protocols.join(" or ")}`);
  return value;
}

/**
 * A comma-separated list of URLs (`RPC_URL_8453=https://a,https://b`), each checked; the
 * first is the preferred provider. An empty item (`https://a,,https://b`) is a mistake, not skipped.
 */
function checkUrls(name: string, value: string, protocols: string[]): string[] {
  const items = value.split(",").map((s) => s.trim());
  return items.map((item, i) => {
    if (!item) throw new Error(`${name}: item ${i + 1} of the list is empty`);
    return checkUrl(items.length > 1 ? `${name} (item ${i + 1})` : name, item, protocols);
  });
}

export type BuildNetworksOptions = {
  env: Record<string, string | undefined>;
  networksFile?: string;
  /** Networks given in code (tests), same shape and validation as a networks file entry. */
  extraNetworks?: FileNetworkInput[];
  disabled: string[];
  production: boolean;
  baseUrl: string;
  /** The registered network types (`plugins/`): their catalogues, address formats and checks. */
  networkTypes: readonly NetworkTypeSpec[];
};

/** The built-in networks of every registered type: mainnets first, then testnets, each type's in its order. */
export const catalogueOf = (networkTypes: readonly NetworkTypeSpec[]): NetworkDefinition[] =>
  [false, true].flatMap((testnet) => networkTypes.flatMap((t) => t.catalogue.filter((n) => n.isTestnet === testnet)));

/**
 * Builds the catalogue the service runs with: the real networks plus any from a
 * networks file, with RPC URLs from the environment. Fails naming the variable or
 * entry at fault: a wrong address or duplicate id stops start-up.
 */
export function buildNetworks(opts: BuildNetworksOptions): Network[] {
  const fileNetworks = [
    ...(opts.networksFile ? readNetworksFile(opts.networksFile) : []),
    ...parseExtraNetworks(opts.extraNetworks ?? []),
  ];
  const specs = new Map(opts.networkTypes.map((t) => [t.type as string, t]));
  const byShortName = new Map<string, { def: NetworkDefinition; rpc?: string; ws?: string; settlement?: string; factory?: string }>();
  for (const def of catalogueOf(opts.networkTypes)) byShortName.set(def.shortName, { def });
  for (const n of fileNetworks) {
    if (!specs.has(n.type)) throw new Error(`network ${n.shortName}: type must be one of ${[...specs.keys()].join(", ")}, not ${JSON.stringify(n.type)}`);
    byShortName.set(n.shortName, { def: toDefinition(n), rpc: n.rpcUrl, ws: n.wsUrl, settlement: n.settlementContract, factory: n.forwarderFactory });
  }

  for (const name of opts.disabled) {
    if (!byShortName.has(name)) throw new Error(`NETWORKS_DISABLED: unknown network "${name}"`);
  }

  const networks: Network[] = [];
  const seenIds = new Set<string>();
  for (const { def, rpc, ws, settlement, factory } of byShortName.values()) {
    if (def.isLocal && opts.production) {
      throw new Error(`NETWORKS_FILE: local network "${def.shortName}" is not allowed when APP_ENV=production`);
    }
    const spec = specs.get(def.type)!;
    const id = networkIdOf(def.type, def.chainId);
    if (seenIds.has(id)) throw new Error(`NETWORKS_FILE: chain ${def.chainId} is defined twice`);
    seenIds.add(id);

    const tokens = def.tokens.map((token) => {
      const address = spec.address.normalize(token.address);
      if (!address) throw new Error(`network ${def.shortName}: token ${token.symbol} has an invalid address ${token.address}`);
      if (token.tokenProgram && !spec.tokenPrograms) throw new Error(`network ${def.shortName}: token ${token.symbol}: tokenProgram is for Solana tokens only`);
      return { ...token, address };
    });
    const symbols = new Set(tokens.map((t) => t.symbol));
    if (symbols.size !== tokens.length) throw new Error(`network ${def.shortName}: a token symbol is listed twice`);

    const rpcEnv = endpoint(opts.env, "RPC_URL", def, spec);
    const wsEnv = endpoint(opts.env, "WS_URL", def, spec);
    const httpProtocols = [...spec.rpcProtocols];
    // A networks file's URLs pass the same checks as the variables' (zod's url() takes `localhost:8545` or `ftp:`).
    const rpcUrls = rpcEnv ? checkUrls(rpcEnv.name, rpcEnv.value, httpProtocols) : rpc ? checkUrls(`network ${def.shortName}: rpcUrl`, rpc, httpProtocols) : [];
    const wsUrls = wsEnv ? checkUrls(wsEnv.name, wsEnv.value, ["ws:", "wss:"]) : ws ? checkUrls(`network ${def.shortName}: wsUrl`, ws, ["ws:", "wss:"]) : [];
    // The first of each list stays `rpcUrl` / `wsUrl` for every reader that needs one URL.
    const rpcUrl = rpcUrls[0] ?? null;
    const wsUrl = wsUrls[0] ?? null;
    const chainIdProblem = spec.chainIdProblem?.(def.chainId);
    if (chainIdProblem) throw new Error(`network ${def.shortName}: chainId ${chainIdProblem}, not ${JSON.stringify(def.chainId)}`);

    const contract = (kind: "SETTLEMENT_CONTRACT" | "FORWARDER_FACTORY", fromFile: string | undefined) => {
      const fromEnv = endpoint(opts.env, kind, def, spec);
      const value = fromEnv?.value ?? fromFile;
      if (!value) return null;
      if (!spec.contracts) throw new Error(`${fromEnv?.name ?? `network ${def.shortName}`}: contracts exist only on ${opts.networkTypes.filter((t) => t.contracts).map((t) => t.address.name).join(" or ")} networks`);
      const address = spec.address.normalize(value);
      if (!address) throw new Error(`${fromEnv?.name ?? `network ${def.shortName} ${kind.toLowerCase()}`}: not a valid ${spec.address.name} address`);
      return address;
    };

    networks.push({
      ...def,
      finalityBlocks: def.finalityBlocks ?? null,
      settlementContract: contract("SETTLEMENT_CONTRACT", settlement),
      forwarderFactory: contract("FORWARDER_FACTORY", factory),
      id,
      tokens,
      rpcUrl,
      rpcUrls,
      wsUrl,
      wsUrls,
      logo: `${opts.baseUrl}/api/static/networks/${def.shortName}.svg`,
      enabled: rpcUrl !== null && !opts.disabled.includes(def.shortName),
    });
  }
  return networks;
}


function parseExtraNetworks(networks: FileNetworkInput[]) {
  const parsed = networkFileSchema.safeParse({ networks });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`extra networks: ${issue.path.join(".")}: ${issue.message}`);
  }
  return parsed.data.networks;
}

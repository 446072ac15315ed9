import type { Config } from "./configType.ts";
import type { RailConfigSection } from "./railSections.ts";

/** Secret-free view of the config for logs: credentials and RPC paths (often API keys) removed; each rail's settings as its section redacts them (`plugins/config.ts`'s `redactConfig` passes every one). */
export function redactConfigWith(rails: readonly RailConfigSection[], config: Config) {
  const hideUrl = (value: string | null | undefined) => {
    if (!value) return value ?? null;
    try {
      const u = new URL(value);
      return `${u.protocol}//${u.host}${u.pathname.length > 1 || u.search ? "/…" : ""}`;
    } catch {
      return "…";
    }
  };
  return {
    ...config,
    databaseUrl: hideUrl(config.databaseUrl),
    operatorPrivateKey: config.operatorPrivateKey ? "[redacted]" : null,
    intentSignerPrivateKey: config.intentSignerPrivateKey ? "[redacted]" : null,
    bridge: {
      ...config.bridge,
      relay: { ...config.bridge.relay, apiKey: config.bridge.relay.apiKey ? "[redacted]" : null },
      local: config.bridge.local ? { ...config.bridge.local, relayerPrivateKey: "[redacted]" } : null,
    },
    ...Object.fromEntries(rails.map((rail) => [rail.key, rail.redact ? rail.redact(config[rail.key]) : config[rail.key]])),
    secrets: { keyId: config.secrets.keyId },
    // Logged as JSON: a bigint would not serialize.
    x402: { ...config.x402, dailyGasCapWei: config.x402.dailyGasCapWei.toString() },
    operator: { ...config.operator, token: config.operator.token ? "[redacted]" : null },
    redis: { ...config.redis, url: hideUrl(config.redis.url) },
    networks: config.networks.map((n) => ({ shortName: n.shortName, enabled: n.enabled, rpcUrl: hideUrl(n.rpcUrl), rpcUrls: n.rpcUrls.map(hideUrl), wsUrl: hideUrl(n.wsUrl), wsUrls: n.wsUrls.map(hideUrl) })),
  };
}

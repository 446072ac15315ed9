import type { Config } from "./configType.ts";

/** Secret-free view of the config for logs: credentials and RPC paths (often API keys) removed. */
export function redactConfig(config: Config) {
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
    solana: {
      ...config.solana,
      operatorSecretKey: config.solana.operatorSecretKey ? "[redacted]" : null,
      depositSeed: config.solana.depositSeed ? "[redacted]" : null,
      webhook: { ...config.solana.webhook, authHeader: config.solana.webhook.authHeader ? "[redacted]" : null },
      helius: { apiKey: config.solana.helius.apiKey ? "[redacted]" : null, webhookUrl: config.solana.helius.webhookUrl },
    },
    secrets: { keyId: config.secrets.keyId },
    // Logged as JSON: a bigint would not serialize.
    x402: { ...config.x402, dailyGasCapWei: config.x402.dailyGasCapWei.toString() },
    operator: { ...config.operator, token: config.operator.token ? "[redacted]" : null },
    redis: { ...config.redis, url: hideUrl(config.redis.url) },
    networks: config.networks.map((n) => ({ shortName: n.shortName, enabled: n.enabled, rpcUrl: hideUrl(n.rpcUrl), rpcUrls: n.rpcUrls.map(hideUrl), wsUrl: hideUrl(n.wsUrl), wsUrls: n.wsUrls.map(hideUrl) })),
  };
}

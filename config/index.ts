import { z } from "zod";
import { normalizeDecimal } from "../domain/decimal.ts";
import { createSecretBox, DEVELOPMENT_SECRETS_KEY, parseSecretsKey } from "../domain/secretBox.ts";
import { buildBridgeConfig, type BridgeConfig } from "./bridge.ts";
import { ConfigError } from "./configError.ts";
import type { Config } from "./configType.ts";
import { envSchema } from "./env.ts";
import { buildNetworks } from "./networks.ts";
import { evmOperatorAddress } from "./operatorAddress.ts";
import { CORE_ROLES, CORE_SECRET_READERS, foreignSecretsOf, type Role } from "./roles.ts";
import type { ConfigRails, RailConfigs, RailConfigSection, RailMetricsPorts } from "./railSections.ts";
import { parseStaticRates } from "./staticRates.ts";
import type { FileNetworkInput } from "./networksFile.ts";
import type { Mode, Network } from "./types.ts";

export type { Mode, Network, NetworkType, Token } from "./types.ts";
export type { Config, OperatorConfig, RateBudget, RateLimitsConfig, RatesConfig, WebhooksConfig } from "./configType.ts";
export type { ConfigRails, RailConfigs, RailConfigSection, RailMetricsPorts } from "./railSections.ts";
export type { NetworkTypeSpec } from "./networkTypeSpec.ts";
export { catalogueOf } from "./networks.ts";
export { railConfigSection } from "./railSections.ts";
export { ConfigError } from "./configError.ts";
export { redactConfigWith } from "./redactConfig.ts";
export { CORE_ROLES, CORE_SECRET_READERS, envForRoleOf, foreignSecretsOf, type RailRoles, type Role } from "./roles.ts";
export { modeOfNetwork } from "./types.ts";
export { networkIdOf } from "./networks.ts";
export type { FileNetwork, FileNetworkInput } from "./networksFile.ts";
export { bridgeAdapterFor, type BridgeAdapterName, type BridgeConfig } from "./bridge.ts";

/** The variables set: `KEY=` in an env file is unset, not "" (a blank number would read as 0: port 0, no overlap, no watch). */
export const setVariables = (env: Record<string, string | undefined>): Record<string, string> =>
  Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1].trim() !== ""));

/**
 * How this machine reaches a server listening on `host`: a wildcard address is reached on
 * loopback, and an IPv6 address goes in brackets (`http://:::3000` is no URL).
 */
export function localBaseUrl(host: string, port: number): string {
  const reached = host === "0.0.0.0" ? "127.0.0.1" : host === "::" || host === "[::]" ? "::1" : host;
  return `http://${reached.includes(":") && !reached.startsWith("[") ? `[${reached}]` : reached}:${port}`;
}

export type BuildConfigOptions = { extraNetworks?: FileNetworkInput[]; role?: Role };

/**
 * Parses and validates the whole configuration once: the service's own variables and each
 * registered rail's section and network type (`plugins/config.ts`'s `buildConfig` passes every one).
 * Throws a ConfigError whose message names the variable at fault; callers print it and exit.
 */
export function buildConfigWith(
  { sections: rails, networkTypes }: ConfigRails,
  env: Record<string, string | undefined> = process.env,
  options: BuildConfigOptions = {},
): Config {
  const schema = rails.reduce<z.ZodObject<z.ZodRawShape>>((s, rail) => s.extend(rail.env.shape), envSchema);
  // A role's configuration is built without the secrets it must not read (`config/roles.ts`): not parsed, not kept.
  const given = setVariables(env);
  const roles: string[] = [...CORE_ROLES, ...rails.flatMap((rail) => (rail.role ? [rail.role] : []))];
  if (given.STABLEPAY_ROLE !== undefined && !roles.includes(given.STABLEPAY_ROLE)) throw new ConfigError(`STABLEPAY_ROLE: must be one of ${roles.join(", ")}`);
  const role = options.role ?? (given.STABLEPAY_ROLE as Role | undefined);
  const readers = Object.assign({}, CORE_SECRET_READERS, ...rails.map((rail) => rail.secretReaders ?? {}));
  for (const name of foreignSecretsOf(readers, given, role)) delete given[name];
  const parsed = schema.safeParse(given);
  if (!parsed.success) throw new ConfigError(describeEnvError(parsed.error));
  const e = parsed.data as z.infer<typeof envSchema>;
  const production = e.APP_ENV === "production";
  if (production && !e.DATABASE_URL) throw new ConfigError("DATABASE_URL: required when APP_ENV=production");

  if (production && !e.SECRETS_KEY) throw new ConfigError("SECRETS_KEY: required when APP_ENV=production (32 random bytes: `openssl rand -base64 32`)");
  const secretsKey = e.SECRETS_KEY ? parseSecretsKey(e.SECRETS_KEY) : DEVELOPMENT_SECRETS_KEY;
  if (!secretsKey) throw new ConfigError("SECRETS_KEY: must be 32 bytes as base64 or 64 hex digits (`openssl rand -base64 32`)");
  if (e.FEE_BPS > 0 && !e.FEE_RECIPIENT) throw new ConfigError("FEE_RECIPIENT: required when FEE_BPS is above 0");
  if (e.PAYMENT_EXPIRES_IN > e.PAYMENT_MAX_EXPIRES_IN) throw new ConfigError("PAYMENT_EXPIRES_IN: must not exceed PAYMENT_MAX_EXPIRES_IN");
  // A public-key create without expiresIn gets the default: it must be one the public key may ask.
  if (e.PAYMENT_EXPIRES_IN > e.PUBLIC_KEY_MAX_EXPIRES_IN) throw new ConfigError("PAYMENT_EXPIRES_IN: must not exceed PUBLIC_KEY_MAX_EXPIRES_IN");
  if (e.MAX_OPEN_PAYMENTS_PUBLIC_KEY > e.MAX_OPEN_PAYMENTS) throw new ConfigError("MAX_OPEN_PAYMENTS_PUBLIC_KEY: must not exceed MAX_OPEN_PAYMENTS");
  const operatorAddress = evmOperatorAddress(e);
  const railConfigs = Object.fromEntries(rails.map((rail) => [rail.key, rail.build(parsed.data)])) as unknown as RailConfigs;
  const railMetricsPorts = Object.fromEntries(rails.flatMap((rail) => (rail.metricsPort ? [[rail.key, rail.metricsPort(parsed.data)]] : []))) as unknown as RailMetricsPorts;
  // Every checkout link and logo is built on it: in production a loopback guess would be stored in answers.
  if (production && !e.PUBLIC_BASE_URL) throw new ConfigError("PUBLIC_BASE_URL: required when APP_ENV=production (the address customers reach, e.g. https://pay.example.com)");
  if (e.PUBLIC_BASE_URL && /[?#]/.test(e.PUBLIC_BASE_URL)) throw new ConfigError("PUBLIC_BASE_URL: must not carry a query or fragment (links are built by appending paths)");
  const publicBaseUrl = (e.PUBLIC_BASE_URL ?? localBaseUrl(e.HOST, e.PORT)).replace(/\/+$/, "");
  let networks: Network[];
  try {
    networks = buildNetworks({
      env,
      networksFile: e.NETWORKS_FILE,
      extraNetworks: options.extraNetworks,
      disabled: e.NETWORKS_DISABLED,
      production,
      baseUrl: publicBaseUrl,
      networkTypes,
    });
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  let bridge: BridgeConfig;
  try {
    bridge = buildBridgeConfig(e, given, networks, networkTypes, { relayerKeyRead: role === undefined || role === "relayer" });
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }

  return {
    appEnv: e.APP_ENV,
    role: role ?? null,
    http: { host: e.HOST, port: e.PORT, publicBaseUrl, corsOrigins: e.CORS_ORIGINS.includes("*") ? "*" : e.CORS_ORIGINS },
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseProbeTimeoutMs: e.DATABASE_PROBE_TIMEOUT_MS,
    dataDir: e.DATA_DIR,
    redis: { url: e.REDIS_URL, prefix: e.QUEUE_PREFIX, timeoutMs: e.QUEUE_TIMEOUT_MS },
    indexer: {
      schema: e.INDEXER_SCHEMA,
      viewsSchema: e.INDEXER_VIEWS_SCHEMA,
      maxLagBlocks: e.INDEXER_MAX_LAG_BLOCKS,
      nodeStaleAfterMs: e.NODE_STALE_AFTER_SECONDS * 1000,
      port: e.INDEXER_PORT,
      chainId: e.INDEXER_CHAIN_ID ?? null,
      networkTypes: networkTypes.filter((t) => t.indexed).map((t) => t.type),
      watchAfterExpiryHours: e.INDEXER_WATCH_AFTER_EXPIRY_HOURS,
      everyBlockAfterExpiryMinutes: e.INDEXER_EVERY_BLOCK_AFTER_EXPIRY_MINUTES,
      lateScanBlocks: e.INDEXER_LATE_SCAN_BLOCKS,
      replayBlockRange: e.REPLAY_BLOCK_RANGE,
    },
    rpcTimeoutMs: e.RPC_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    networks,
    operatorPrivateKey: (e.OPERATOR_PRIVATE_KEY as `0x${string}` | undefined) ?? null,
    operatorAddress,
    intentSignerPrivateKey: (e.INTENT_SIGNER_PRIVATE_KEY as `0x${string}` | undefined) ?? null,
    fees: { bps: e.FEE_BPS, recipient: e.FEE_RECIPIENT ?? null },
    transfers: { replaceAfterMs: Math.round(e.TRANSFER_REPLACE_AFTER * 1000) },
    x402: { settleWaitMs: e.X402_SETTLE_WAIT_MS, confirmationTimeoutMs: e.X402_CONFIRMATION_TIMEOUT_MS, dailyGasCapWei: BigInt(e.X402_DAILY_GAS_CAP_WEI) },
    refunds: { minimum: normalizeDecimal(e.REFUND_MIN_AMOUNT)! },
    payments: {
      defaultExpiresIn: e.PAYMENT_EXPIRES_IN,
      maxExpiresIn: e.PAYMENT_MAX_EXPIRES_IN,
      signingThreads: e.SIGNING_THREADS,
      publicKeyMaxExpiresIn: Math.min(e.PUBLIC_KEY_MAX_EXPIRES_IN, e.PAYMENT_MAX_EXPIRES_IN),
      maxOpen: e.MAX_OPEN_PAYMENTS,
      maxOpenPublicKey: e.MAX_OPEN_PAYMENTS_PUBLIC_KEY,
      bodyWindowSeconds: e.IDEMPOTENCY_BODY_WINDOW_SECONDS,
    },
    auth: { publicKeyAccountReads: e.PUBLIC_KEY_ACCOUNT_READS === "on" },
    rateLimits: {
      enabled: e.RATE_LIMITS === "on",
      windowSeconds: e.RATE_LIMIT_WINDOW_SECONDS,
      publicKey: { creates: e.RATE_LIMIT_PUBLIC_KEY_CREATES, reads: e.RATE_LIMIT_PUBLIC_KEY_READS },
      apiKey: { creates: e.RATE_LIMIT_API_KEY_CREATES, reads: e.RATE_LIMIT_API_KEY_READS },
      ip: { creates: e.RATE_LIMIT_IP_CREATES, reads: e.RATE_LIMIT_IP_READS },
      clientIpHeader: e.RATE_LIMIT_CLIENT_IP_HEADER ?? null,
    },
    webhooks: {
      retryDelaysMs: e.WEBHOOK_RETRY_SCHEDULE.split(",").map((v) => Math.round(Number(v.trim()) * 1000)),
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      redriveIntervalMs: e.WEBHOOK_REDRIVE_INTERVAL_MS,
      secretOverlapMs: Math.round(e.WEBHOOK_SECRET_OVERLAP_HOURS * 3_600_000),
      concurrency: e.WEBHOOK_CONCURRENCY,
      maxInFlightPerUrl: e.WEBHOOK_MAX_IN_FLIGHT_PER_URL,
      maxInFlightPerMerchant: e.WEBHOOK_MAX_IN_FLIGHT_PER_MERCHANT,
      testTargets: e.WEBHOOK_TEST_TARGETS ?? (production ? "public" : "any"),
      redeliveriesPerHour: e.WEBHOOK_REDELIVERIES_PER_HOUR,
    },
    checkout: { maxStreams: e.CHECKOUT_MAX_STREAMS },
    dashboard: {
      idleMs: e.DASHBOARD_SESSION_IDLE_MINUTES * 60_000,
      absoluteMs: e.DASHBOARD_SESSION_MAX_HOURS * 3_600_000,
      inviteMs: e.DASHBOARD_INVITE_HOURS * 3_600_000,
      signInAttempts: e.DASHBOARD_SIGNIN_ATTEMPTS,
      lockoutSeconds: e.DASHBOARD_SIGNIN_LOCKOUT_MINUTES * 60,
      secureCookies: e.APP_ENV === "production",
    },
    rates: {
      provider: e.RATES_PROVIDER,
      static: parseStaticRates(e.RATES_STATIC),
      url: e.RATES_URL,
      timeoutMs: e.RATES_TIMEOUT_MS,
      cacheTtlMs: e.RATES_CACHE_TTL_SECONDS * 1000,
      maxAgeMs: e.RATES_MAX_AGE_SECONDS * 1000,
    },
    bridge,
    ...railConfigs,
    secrets: createSecretBox(secretsKey),
    operator: {
      token: e.OPERATOR_TOKEN ?? null,
      metricsHost: e.METRICS_HOST ?? e.HOST,
      metricsPorts: { worker: e.WORKER_METRICS_PORT, indexer: e.INDEXER_METRICS_PORT, ...railMetricsPorts },
      queueDashboard: e.QUEUE_DASHBOARD,
    },
    metrics: { sharedLeaseMs: e.METRICS_LEASE_SECONDS * 1000 },
  };
}

function describeEnvError(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "environment"}: ${i.message}`).join("; ");
}

/** Loads the config for a process entry point, printing one clear line and exiting on error. */
export function loadConfigWithOrExit(rails: ConfigRails, env: Record<string, string | undefined> = process.env, role?: Role): Config {
  try {
    return buildConfigWith(rails, env, { role });
  } catch (error) {
    console.error(`Invalid configuration: ${(error as Error).message}`);
    process.exit(1);
  }
}

export const networksForMode = (config: Config, mode: Mode) =>
  config.networks.filter((n) => n.isTestnet === (mode === "test"));

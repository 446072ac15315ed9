import { z } from "zod";
import { normalizeDecimal } from "../domain/decimal.ts";
import { createSecretBox, DEVELOPMENT_SECRETS_KEY, parseSecretsKey, type SecretBox } from "../domain/secretBox.ts";
import { buildBridgeConfig, type BridgeConfig } from "./bridge.ts";
import { envSchema, type Env } from "./env.ts";
import { buildNetworks } from "./networks.ts";
import { parseSolanaSecretKey } from "../rails/solana/parseSecretKey.ts";
import { normalizeSolanaAddress } from "../rails/solana/normalizeAddress.ts";
import { privateKeyToAddress } from "viem/accounts";
import { base58 } from "@scure/base";
import { foreignSecrets, type Role } from "./roles.ts";
import type { FileNetworkInput } from "./networksFile.ts";
import type { Mode, Network } from "./types.ts";

export type { Mode, Network, NetworkType, Token } from "./types.ts";
export { ROLES, envForRole, foreignSecrets, type Role } from "./roles.ts";
export { modeOfNetwork } from "./types.ts";
export { networkIdOf } from "./networks.ts";
export type { FileNetwork, FileNetworkInput } from "./networksFile.ts";
export { bridgeAdapterFor, type BridgeAdapterName, type BridgeConfig } from "./bridge.ts";

export type Config = {
  appEnv: Env["APP_ENV"];
  /** The role this process runs as (`scripts/role.ts`); null: every role at once (tests, the CLI, `npm start`'s supervisor). */
  role: Role | null;
  /** `corsOrigins`: browser origins allowed to call the API; `"*"` is any. */
  http: { host: string; port: number; publicBaseUrl: string; corsOrigins: string[] | "*" };
  /** Absent only outside production, where the dev stack starts embedded Postgres. */
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** How long a role waits for its Postgres probe (`createProbedPool`); 0: no probe. */
  databaseProbeTimeoutMs: number;
  dataDir: string;
  redis: { url: string; prefix: string; timeoutMs: number };
  /** `nodeStaleAfterMs`: a (non-local) node whose newest block is older than this is taken to be stuck. */
  indexer: {
    schema: string;
    viewsSchema: string;
    maxLagBlocks: number;
    nodeStaleAfterMs: number;
    port: number;
    /** Late money: how long after expiry an address is watched at all; and, on EVM, asked for in every block, then in ranges of `lateScanBlocks`. */
    watchAfterExpiryHours: number;
    everyBlockAfterExpiryMinutes: number;
    lateScanBlocks: number;
    replayBlockRange: number;
  };
  rpcTimeoutMs: number;
  logLevel: Env["LOG_LEVEL"];
  networks: Network[];
  /** The EVM operator's key (the ForwarderFactory's operator): sweeps and refunds deposits. The worker's alone; null elsewhere. */
  operatorPrivateKey: `0x${string}` | null;
  /** The EVM operator's address: from its key where it is held, else OPERATOR_ADDRESS; null: no operator (no EVM payments). */
  operatorAddress: `0x${string}` | null;
  /** Signs payment intents (PaymentSettlement's operator). The API's alone; null: no contract payments. */
  intentSignerPrivateKey: `0x${string}` | null;
  fees: { bps: number; recipient: string | null };
  /** Sweeps and refunds: a transaction still unmined after `replaceAfterMs` is re-sent with higher fees. */
  transfers: { replaceAfterMs: number };
  /** `minimum`: the least a refund sends, a decimal in token units (REFUND_MIN_AMOUNT, normalized). */
  refunds: { minimum: string };
  /**
   * `publicKeyMaxExpiresIn`: the most a public-key create may ask (≤ maxExpiresIn). `maxOpen`: open
   * payments per merchant and mode; `maxOpenPublicKey`: where public-key creates stop.
   * `bodyWindowSeconds`: how long an identical body (no Idempotency-Key, no orderId) is a retry.
   */
  payments: {
    defaultExpiresIn: number;
    maxExpiresIn: number;
    signingThreads: number;
    publicKeyMaxExpiresIn: number;
    maxOpen: number;
    maxOpenPublicKey: number;
    bodyWindowSeconds: number;
  };
  /** `publicKeyAccountReads`: the deprecated public-key reads of the payment list and stats (spec rule 4). */
  auth: { publicKeyAccountReads: boolean };
  rateLimits: RateLimitsConfig;
  webhooks: WebhooksConfig;
  /** The hosted checkout page: live streams one API process holds at most. */
  checkout: { maxStreams: number };
  rates: RatesConfig;
  /** Cross-chain payments: bridges per route, refund addresses, Relay and the local relayer. */
  bridge: BridgeConfig;
  solana: SolanaConfig;
  /** Seals and opens stored webhook signing secrets (SECRETS_KEY; a public development key outside production). */
  secrets: SecretBox;
  operator: OperatorConfig;
  /** `sharedLeaseMs`: the lease of the one worker that exports the gauges of shared state (METRICS_LEASE_SECONDS). */
  metrics: { sharedLeaseMs: number };
};

/** Requests per window of one bucket: creates, and every other request ("reads"). */
export type RateBudget = { creates: number; reads: number };

/**
 * Rate limits (`api/plugins/rateLimits.ts`): per public key, per API key, and per client IP
 * (public-key and credential-free calls: `ip`; key + secret calls: `apiKey`'s figures).
 * `clientIpHeader`: read the client's IP from this header (a proxy you run sets it); null: the connection's.
 */
export type RateLimitsConfig = {
  enabled: boolean;
  windowSeconds: number;
  publicKey: RateBudget;
  apiKey: RateBudget;
  ip: RateBudget;
  clientIpHeader: string | null;
};

/**
 * Operators' endpoints: `/metrics` of every role and the queue dashboard, behind `token`
 * (null: both off). The worker and indexer roles serve `/metrics` on their own port (0: none).
 */
export type OperatorConfig = {
  token: string | null;
  metricsHost: string;
  metricsPorts: { worker: number; indexer: number; solana: number };
  queueDashboard: "read-only" | "read-write" | "off";
};

/** Exchange rates: units of each currency per one US dollar (see `rates/`). */
export type RatesConfig = {
  provider: "static" | "http";
  /** Currency code → decimal string, from RATES_STATIC. */
  static: Record<string, string>;
  url: string;
  timeoutMs: number;
  cacheTtlMs: number;
  maxAgeMs: number;
};

/**
 * The Solana rail: the operator keypair paying sweep/refund fees (null: no sweeps), the
 * subscriber's timers, how long closed payments stay watched, and Helius webhooks.
 */
export type SolanaConfig = {
  /** The worker's alone; null elsewhere. */
  operatorSecretKey: Uint8Array | null;
  /** From the secret key where it is held, else SOLANA_OPERATOR_ADDRESS; null: no operator (no deposit addresses). */
  operatorAddress: string | null;
  /** SOLANA_DEPOSIT_SEED: every deposit key derives from it. The worker's (and the CLI's) alone; null elsewhere. */
  depositSeed: Uint8Array | null;
  /** The pool of pre-derived deposit addresses the worker keeps filled: topped up to `size` once fewer than `refillBelow` are free. */
  depositPool: { size: number; refillBelow: number };
  pollIntervalMs: number;
  headIntervalMs: number;
  wsStaleMs: number;
  watchAfterCloseMs: number;
  /** Closed this recently: scanned on every poll and followed over the websocket; closed earlier (still watched): scanned every `latePollIntervalMs`. */
  everyPollAfterCloseMs: number;
  latePollIntervalMs: number;
  webhook: { host: string; port: number; authHeader: string | null };
  helius: { apiKey: string | null; webhookUrl: string | null };
};

/** Webhook delivery: retry delays (ms, one per retry), attempt timeout, re-drive period, rotation overlap. */
/** `testTargets`: where test-mode webhooks may go (`public` addresses only, or `any`); live ones go only to public addresses. */
export type WebhooksConfig = {
  retryDelaysMs: number[];
  timeoutMs: number;
  redriveIntervalMs: number;
  secretOverlapMs: number;
  concurrency: number;
  maxInFlightPerUrl: number;
  maxInFlightPerMerchant: number;
  testTargets: "any" | "public";
  /** Redeliveries of one event a merchant may ask for in an hour. */
  redeliveriesPerHour: number;
};

export class ConfigError extends Error {
  override name = "ConfigError";
}

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

/**
 * Parses and validates the whole configuration once. Throws a ConfigError whose
 * message names the variable at fault; callers print it and exit.
 */
export function buildConfig(
  env: Record<string, string | undefined> = process.env,
  options: { extraNetworks?: FileNetworkInput[]; role?: Role } = {},
): Config {
  // A role's configuration is built without the secrets it must not read (`config/roles.ts`): not parsed, not kept.
  const role = options.role ?? (envSchema.shape.STABLEPAY_ROLE.safeParse(setVariables(env).STABLEPAY_ROLE).data as Role | undefined);
  const given = setVariables(env);
  for (const name of foreignSecrets(given, role)) delete given[name];
  const parsed = envSchema.safeParse(given);
  if (!parsed.success) throw new ConfigError(describeEnvError(parsed.error));
  const e = parsed.data;
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
  const solanaOperator = e.SOLANA_OPERATOR_SECRET_KEY ? parseSolanaSecretKey(e.SOLANA_OPERATOR_SECRET_KEY) : null;
  if (e.SOLANA_OPERATOR_SECRET_KEY && !solanaOperator) {
    throw new ConfigError("SOLANA_OPERATOR_SECRET_KEY: must be a Solana keypair's 64-byte secret key, base58 or a JSON array of bytes");
  }
  const operators = operatorAddresses(e, solanaOperator);
  if (e.SOLANA_DEPOSIT_POOL_REFILL_BELOW > e.SOLANA_DEPOSIT_POOL_SIZE) throw new ConfigError("SOLANA_DEPOSIT_POOL_REFILL_BELOW: must not exceed SOLANA_DEPOSIT_POOL_SIZE");
  if (e.SOLANA_WEBHOOK_PORT > 0 && !e.HELIUS_WEBHOOK_AUTH_HEADER) {
    throw new ConfigError("HELIUS_WEBHOOK_AUTH_HEADER: required when SOLANA_WEBHOOK_PORT is set (every delivery must prove it comes from your Helius webhook)");
  }
  if (e.HELIUS_API_KEY && (!e.HELIUS_WEBHOOK_URL || !e.HELIUS_WEBHOOK_AUTH_HEADER)) {
    throw new ConfigError("HELIUS_WEBHOOK_URL and HELIUS_WEBHOOK_AUTH_HEADER: required with HELIUS_API_KEY");
  }
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
    });
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  let bridge: BridgeConfig;
  try {
    bridge = buildBridgeConfig(e, given, networks, { relayerKeyRead: role === undefined || role === "relayer" });
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
      watchAfterExpiryHours: e.INDEXER_WATCH_AFTER_EXPIRY_HOURS,
      everyBlockAfterExpiryMinutes: e.INDEXER_EVERY_BLOCK_AFTER_EXPIRY_MINUTES,
      lateScanBlocks: e.INDEXER_LATE_SCAN_BLOCKS,
      replayBlockRange: e.REPLAY_BLOCK_RANGE,
    },
    rpcTimeoutMs: e.RPC_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    networks,
    operatorPrivateKey: (e.OPERATOR_PRIVATE_KEY as `0x${string}` | undefined) ?? null,
    operatorAddress: operators.evm,
    intentSignerPrivateKey: (e.INTENT_SIGNER_PRIVATE_KEY as `0x${string}` | undefined) ?? null,
    fees: { bps: e.FEE_BPS, recipient: e.FEE_RECIPIENT ?? null },
    transfers: { replaceAfterMs: Math.round(e.TRANSFER_REPLACE_AFTER * 1000) },
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
    rates: {
      provider: e.RATES_PROVIDER,
      static: parseStaticRates(e.RATES_STATIC),
      url: e.RATES_URL,
      timeoutMs: e.RATES_TIMEOUT_MS,
      cacheTtlMs: e.RATES_CACHE_TTL_SECONDS * 1000,
      maxAgeMs: e.RATES_MAX_AGE_SECONDS * 1000,
    },
    bridge,
    solana: {
      operatorSecretKey: solanaOperator,
      operatorAddress: operators.solana,
      depositSeed: e.SOLANA_DEPOSIT_SEED ? Uint8Array.from(Buffer.from(e.SOLANA_DEPOSIT_SEED.replace(/^0x/, ""), "hex")) : null,
      depositPool: { size: e.SOLANA_DEPOSIT_POOL_SIZE, refillBelow: e.SOLANA_DEPOSIT_POOL_REFILL_BELOW },
      pollIntervalMs: e.SOLANA_POLL_INTERVAL_MS,
      headIntervalMs: e.SOLANA_HEAD_INTERVAL_MS,
      wsStaleMs: e.SOLANA_WS_STALE_MS,
      watchAfterCloseMs: Math.round(e.SOLANA_WATCH_AFTER_CLOSE_HOURS * 3_600_000),
      everyPollAfterCloseMs: e.SOLANA_EVERY_POLL_AFTER_CLOSE_MINUTES * 60_000,
      latePollIntervalMs: e.SOLANA_LATE_POLL_INTERVAL_MS,
      webhook: { host: e.SOLANA_WEBHOOK_HOST, port: e.SOLANA_WEBHOOK_PORT, authHeader: e.HELIUS_WEBHOOK_AUTH_HEADER ?? null },
      helius: { apiKey: e.HELIUS_API_KEY ?? null, webhookUrl: e.HELIUS_WEBHOOK_URL ?? null },
    },
    secrets: createSecretBox(secretsKey),
    operator: {
      token: e.OPERATOR_TOKEN ?? null,
      metricsHost: e.METRICS_HOST ?? e.HOST,
      metricsPorts: { worker: e.WORKER_METRICS_PORT, indexer: e.INDEXER_METRICS_PORT, solana: e.SOLANA_METRICS_PORT },
      queueDashboard: e.QUEUE_DASHBOARD,
    },
    metrics: { sharedLeaseMs: e.METRICS_LEASE_SECONDS * 1000 },
  };
}

/**
 * The operators' addresses: derived from their keys where this role holds them, else as
 * configured (OPERATOR_ADDRESS, SOLANA_OPERATOR_ADDRESS); a key and an address that disagree
 * are a mistake caught at start (the API would report one account's gas while the worker spends another's).
 */
function operatorAddresses(e: Env, solanaOperator: Uint8Array | null): { evm: `0x${string}` | null; solana: string | null } {
  const evmKeyAddress = e.OPERATOR_PRIVATE_KEY ? privateKeyToAddress(e.OPERATOR_PRIVATE_KEY as `0x${string}`) : null;
  if (evmKeyAddress && e.OPERATOR_ADDRESS && evmKeyAddress !== e.OPERATOR_ADDRESS) {
    throw new ConfigError(`OPERATOR_ADDRESS: ${e.OPERATOR_ADDRESS} is not the address of OPERATOR_PRIVATE_KEY (${evmKeyAddress})`);
  }
  const solanaAddress = e.SOLANA_OPERATOR_ADDRESS === undefined ? null : normalizeSolanaAddress(e.SOLANA_OPERATOR_ADDRESS);
  if (e.SOLANA_OPERATOR_ADDRESS !== undefined && !solanaAddress) throw new ConfigError("SOLANA_OPERATOR_ADDRESS: must be a Solana address (base58)");
  const solanaKeyAddress = solanaOperator ? base58.encode(solanaOperator.subarray(32)) : null;
  if (solanaKeyAddress && solanaAddress && solanaKeyAddress !== solanaAddress) {
    throw new ConfigError(`SOLANA_OPERATOR_ADDRESS: ${solanaAddress} is not the address of SOLANA_OPERATOR_SECRET_KEY (${solanaKeyAddress})`);
  }
  return { evm: evmKeyAddress ?? (e.OPERATOR_ADDRESS as `0x${string}` | undefined) ?? null, solana: solanaKeyAddress ?? solanaAddress };
}

/** "EUR=0.92, NGN=1550" → {EUR: "0.92", NGN: "1550"}; codes are 3 letters, rates positive decimals. */
function parseStaticRates(text: string): Record<string, string> {
  const rates: Record<string, string> = {};
  for (const entry of text.split(",").map((s) => s.trim()).filter(Boolean)) {
    const match = /^([A-Za-z]{3})\s*=\s*(\S+)$/.exec(entry);
    const code = match?.[1]!.toUpperCase();
    const rate = match ? normalizeDecimal(match[2]!) : null;
    if (!code || !rate || rate === "0") {
      throw new ConfigError(`RATES_STATIC: "${entry}" is not CODE=rate (units per US dollar, e.g. EUR=0.92)`);
    }
    if (code === "USD" && rate !== "1") throw new ConfigError("RATES_STATIC: USD is the base and is always 1");
    if (rates[code] !== undefined) throw new ConfigError(`RATES_STATIC: ${code} is listed twice`);
    rates[code] = rate;
  }
  return rates;
}

function describeEnvError(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "environment"}: ${i.message}`).join("; ");
}

/** Loads the config for a process entry point, printing one clear line and exiting on error. */
export function loadConfigOrExit(env: Record<string, string | undefined> = process.env, role?: Role): Config {
  try {
    return buildConfig(env, { role });
  } catch (error) {
    console.error(`Invalid configuration: ${(error as Error).message}`);
    process.exit(1);
  }
}

export const networksForMode = (config: Config, mode: Mode) =>
  config.networks.filter((n) => n.isTestnet === (mode === "test"));

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
    operator: { ...config.operator, token: config.operator.token ? "[redacted]" : null },
    redis: { ...config.redis, url: hideUrl(config.redis.url) },
    networks: config.networks.map((n) => ({ shortName: n.shortName, enabled: n.enabled, rpcUrl: hideUrl(n.rpcUrl), rpcUrls: n.rpcUrls.map(hideUrl), wsUrl: hideUrl(n.wsUrl), wsUrls: n.wsUrls.map(hideUrl) })),
  };
}

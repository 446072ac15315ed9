import type { Env } from "./env.ts";
import type { BridgeConfig } from "./bridge.ts";
import type { Role } from "./roles.ts";
import type { RailConfigs, RailMetricsPorts } from "./railSections.ts";
import type { Network, NetworkType } from "./types.ts";
import type { SecretBox } from "../domain/secretBox.ts";

/** The configuration every role is built from (`buildConfig`): parsed, checked and derived once at start; each rail's settings under its key (`RailConfigs`). */
export type Config = CoreConfig & RailConfigs;

/** The service's own settings, whatever rails are registered. */
export type CoreConfig = {
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
    /** Set in a Ponder process the indexer role started: the one EVM chain it indexes (one Ponder per chain). */
    chainId: string | null;
    /** The network types whose networks it follows (their spec's `indexed`). */
    networkTypes: NetworkType[];
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
  /** The x402 facilitator: how long a settle waits for the worker, and the worker for a receipt. */
  x402: { settleWaitMs: number; confirmationTimeoutMs: number; dailyGasCapWei: bigint };
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
  /** The merchant dashboard (`/dashboard`): session timeouts, invitations, sign-in lockout; cookies `Secure` in production. */
  dashboard: { idleMs: number; absoluteMs: number; inviteMs: number; signInAttempts: number; lockoutSeconds: number; secureCookies: boolean };
  rates: RatesConfig;
  /** Cross-chain payments: bridges per route, refund addresses, Relay and the local relayer. */
  bridge: BridgeConfig;
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
 * (null: both off). The worker and indexer roles, and each rail's own role, serve `/metrics` on their own port (0: none).
 */
export type OperatorConfig = {
  token: string | null;
  metricsHost: string;
  metricsPorts: { worker: number; indexer: number } & RailMetricsPorts;
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

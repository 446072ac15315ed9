import { base58 } from "@scure/base";
import type { z } from "zod";
import { ConfigError } from "../../../config/configError.ts";
import { railConfigSection } from "../../../config/railSections.ts";
import { normalizeSolanaAddress } from "../../../domain/solanaAddress.ts";
import { parseSolanaSecretKey } from "../../../domain/solanaSecretKey.ts";
import { solanaEnv } from "./env.ts";

type Env = z.infer<z.ZodObject<typeof solanaEnv.shape>>;

declare module "../../../config/railSections.ts" {
  interface RailConfigs {
    solana: SolanaConfig;
  }
  interface RailMetricsPorts {
    solana: number;
  }
}
declare module "../../../config/roles.ts" {
  interface RailRoles {
    solana: true;
  }
}

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

/**
 * The Solana rail's settings, checked together: the keypair must be one, the pool's refill
 * mark within its size, and Helius' settings complete (a receiver without its auth header
 * would take anyone's deliveries).
 */
export function buildSolanaConfig(e: Env): SolanaConfig {
  const operatorSecretKey = e.SOLANA_OPERATOR_SECRET_KEY ? parseSolanaSecretKey(e.SOLANA_OPERATOR_SECRET_KEY) : null;
  if (e.SOLANA_OPERATOR_SECRET_KEY && !operatorSecretKey) {
    throw new ConfigError("SOLANA_OPERATOR_SECRET_KEY: must be a Solana keypair's 64-byte secret key, base58 or a JSON array of bytes");
  }
  const operatorAddress = solanaOperatorAddress(e, operatorSecretKey);
  if (e.SOLANA_DEPOSIT_POOL_REFILL_BELOW > e.SOLANA_DEPOSIT_POOL_SIZE) throw new ConfigError("SOLANA_DEPOSIT_POOL_REFILL_BELOW: must not exceed SOLANA_DEPOSIT_POOL_SIZE");
  if (e.SOLANA_WEBHOOK_PORT > 0 && !e.HELIUS_WEBHOOK_AUTH_HEADER) {
    throw new ConfigError("HELIUS_WEBHOOK_AUTH_HEADER: required when SOLANA_WEBHOOK_PORT is set (every delivery must prove it comes from your Helius webhook)");
  }
  if (e.HELIUS_API_KEY && (!e.HELIUS_WEBHOOK_URL || !e.HELIUS_WEBHOOK_AUTH_HEADER)) {
    throw new ConfigError("HELIUS_WEBHOOK_URL and HELIUS_WEBHOOK_AUTH_HEADER: required with HELIUS_API_KEY");
  }
  return {
    operatorSecretKey,
    operatorAddress,
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
  };
}

/** From the secret key where this role holds it, else SOLANA_OPERATOR_ADDRESS; the two must agree where both are set. */
function solanaOperatorAddress(e: Env, secretKey: Uint8Array | null): string | null {
  const address = e.SOLANA_OPERATOR_ADDRESS === undefined ? null : normalizeSolanaAddress(e.SOLANA_OPERATOR_ADDRESS);
  if (e.SOLANA_OPERATOR_ADDRESS !== undefined && !address) throw new ConfigError("SOLANA_OPERATOR_ADDRESS: must be a Solana address (base58)");
  const keyAddress = secretKey ? base58.encode(secretKey.subarray(32)) : null;
  if (keyAddress && address && keyAddress !== address) {
    throw new ConfigError(`SOLANA_OPERATOR_ADDRESS: ${address} is not the address of SOLANA_OPERATOR_SECRET_KEY (${keyAddress})`);
  }
  return keyAddress ?? address;
}

/** The Solana rail's part of the configuration: `config.solana` and its role's `/metrics` port, from its section of the environment; its secrets redacted for logs. */
export const solanaConfigSection = railConfigSection({
  key: "solana",
  env: solanaEnv,
  build: buildSolanaConfig,
  metricsPort: (e) => e.SOLANA_METRICS_PORT,
  role: "solana",
  secretReaders: {
    /** Pays Solana sweeps' fees. */
    SOLANA_OPERATOR_SECRET_KEY: "worker",
    /** Every Solana deposit key derives from it. */
    SOLANA_DEPOSIT_SEED: "worker",
  },
  publicAddresses: (solana) => ({ SOLANA_OPERATOR_ADDRESS: solana.operatorAddress }),
  redact: (solana) => ({
    ...solana,
    operatorSecretKey: solana.operatorSecretKey ? "[redacted]" : null,
    depositSeed: solana.depositSeed ? "[redacted]" : null,
    webhook: { ...solana.webhook, authHeader: solana.webhook.authHeader ? "[redacted]" : null },
    helius: { apiKey: solana.helius.apiKey ? "[redacted]" : null, webhookUrl: solana.helius.webhookUrl },
  }),
});

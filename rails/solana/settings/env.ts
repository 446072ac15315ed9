import { z } from "zod";
import { envSection } from "../../../config/env/section.ts";
import { port, url } from "../../../config/env/formats.ts";

export const solanaEnv = envSection(
  "Solana",
  "The Solana rail: its operator and deposit keys, the subscriber's timers and how long closed payments stay watched, and Helius webhooks. The subscriber is the `solana` role (its `/metrics` on SOLANA_METRICS_PORT).",
  {
    SOLANA_OPERATOR_SECRET_KEY: z
      .string()
      .min(1)
      .optional()
      .describe("The Solana operator's keypair (its 64-byte secret key as base58, or a JSON array of bytes): it pays the fees and rent of sweeps and refunds out of deposit addresses and receives the rent back. Read by: worker, cli."),
    SOLANA_OPERATOR_ADDRESS: z
      .string()
      .min(1)
      .optional()
      .describe("The Solana operator's address (base58), for the roles that do not hold its key; it must match the key where both are set. Unset: derived from SOLANA_OPERATOR_SECRET_KEY, or no deposit addresses. Read by: api, worker."),
    SOLANA_DEPOSIT_SEED: z
      .string()
      .trim()
      .regex(/^(0x)?([0-9a-fA-F]{2}){32,64}$/, "must be 32 to 64 bytes as hex (`openssl rand -hex 32`)")
      .optional()
      .describe("The secret every Solana deposit key derives from (SLIP-0010, `m/44'/501'/<index>'/0'`): 32 to 64 bytes as hex (`openssl rand -hex 32`). Held outside the database; back it up. Read by: worker, cli (`recover`)."),
    SOLANA_DEPOSIT_POOL_SIZE: z.coerce.number().int().min(1).max(100_000).default(500).describe("Pre-derived Solana deposit addresses the worker keeps ready for the API to hand out. Read by: worker."),
    SOLANA_DEPOSIT_POOL_REFILL_BELOW: z.coerce
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(100)
      .describe("The worker tops the pool up to SOLANA_DEPOSIT_POOL_SIZE once fewer than this many addresses are free (at most SOLANA_DEPOSIT_POOL_SIZE). Read by: worker."),
    SOLANA_POLL_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(50)
      .max(600_000)
      .default(5_000)
      .describe("Milliseconds between scans of every watched account: the backstop behind the websocket and webhooks. Read by: solana."),
    SOLANA_HEAD_INTERVAL_MS: z.coerce.number().int().min(20).max(60_000).default(500).describe("Milliseconds between reads of the confirmed and finalized slots (new credits are checked for finality then). Read by: solana."),
    SOLANA_WS_STALE_MS: z.coerce.number().int().min(100).max(600_000).default(15_000).describe("Milliseconds: a websocket with no slot notification for this long is replaced by a new one. Read by: solana."),
    SOLANA_WATCH_AFTER_CLOSE_HOURS: z.coerce
      .number()
      .min(0)
      .max(24 * 365)
      .default(72)
      .describe("Hours an expired, failed or completed Solana payment's accounts stay watched for late money (recorded and owed back). Read by: solana."),
    SOLANA_EVERY_POLL_AFTER_CLOSE_MINUTES: z.coerce
      .number()
      .int()
      .min(0)
      .max(24 * 60)
      .default(60)
      .describe("Minutes after it closed a payment's accounts are still scanned on every poll and followed over the websocket; for the rest of their watch, once every SOLANA_LATE_POLL_INTERVAL_MS (slower, never gapped). Read by: solana."),
    SOLANA_LATE_POLL_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(50)
      .max(3_600_000)
      .default(60_000)
      .describe("Milliseconds between scans of the accounts of payments closed longer ago than SOLANA_EVERY_POLL_AFTER_CLOSE_MINUTES (a scan lists everything since the last one). Read by: solana."),
    SOLANA_WEBHOOK_PORT: port.default(0).describe("Port of the subscriber's Helius webhook receiver (on SOLANA_WEBHOOK_HOST); 0: no receiver. Needs HELIUS_WEBHOOK_AUTH_HEADER. Read by: solana."),
    SOLANA_WEBHOOK_HOST: z.string().min(1).default("127.0.0.1").describe("Interface the Helius webhook receiver listens on (put it behind your proxy). Read by: solana."),
    HELIUS_API_KEY: z
      .string()
      .min(1)
      .optional()
      .describe("Helius API key: the subscriber registers the watched addresses with a Helius webhook. Needs HELIUS_WEBHOOK_URL and HELIUS_WEBHOOK_AUTH_HEADER. Read by: solana."),
    HELIUS_WEBHOOK_AUTH_HEADER: z
      .string()
      .min(16, "at least 16 characters (a random secret)")
      .optional()
      .describe("The `authHeader` every Helius delivery must carry (at least 16 characters: a random secret); a delivery without it is refused. Read by: solana."),
  SOLANA_METRICS_PORT: port.default(9466).describe("Port of the solana role's `/metrics`; 0: none. Read by: solana."),
    HELIUS_WEBHOOK_URL: url(["https:", "http:"])
      .optional()
      .describe("Public URL Helius posts to (the subscriber's receiver behind your proxy), e.g. `https://pay.example.com/solana/helius`. Read by: solana."),
  },
);

import { z } from "zod";
import { RELAY_DEPOSIT_LAG_MS } from "../rails/bridge/relay/types.ts";
import { normalizeEvmAddress } from "../rails/evm/normalizeAddress.ts";

/** The most blocks one late-money scan covers: dispatch looks this far below its cursor, and one more (`rails/evm/readModel/newEvidence.ts`). */
export const MAX_LATE_SCAN_BLOCKS = 63;

const port = z.coerce.number().int().min(0).max(65535);

/** secp256k1's group order: a private key is 1 to n − 1 (viem refuses anything else when the key is first used). */
const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const evmPrivateKey = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key")
  .refine((v) => BigInt(v) > 0n && BigInt(v) < SECP256K1_ORDER, "is not a valid secp256k1 private key (0, or not below the curve's order: a placeholder?)");
const url = (protocols: string[]) =>
  z.string().refine((v) => {
    try {
      return protocols.includes(new URL(v).protocol);
    } catch {
      return false;
    }
  }, `must be a URL (${protocols.join(" or ")})`);

/**
 * An EVM address, checksummed once here. Mixed case must carry a valid EIP-55 checksum:
 * a mistyped digit in a checksummed address is caught at start instead of sending money
 * to an address nobody holds.
 */
const evmAddress = z.string().transform((value, ctx) => {
  const address = normalizeEvmAddress(value);
  if (address) return address;
  ctx.addIssue({ code: "custom", message: "must be an EVM address (0x and 40 hex digits; in mixed case, with a valid EIP-55 checksum)" });
  return z.NEVER;
});

/**
 * Every environment variable the service reads, in one schema. RPC endpoints are
 * dynamic (`RPC_URL_<chainId>`, `RPC_URL_<SHORT_NAME>`, `WS_URL_…`, each one URL or a
 * comma-separated list of providers) and are read in `buildNetworks` from the same env record.
 */
export const envSchema = z.object({
  APP_ENV: z.enum(["development", "test", "production"]).default("development"),
  HOST: z.string().min(1).default("127.0.0.1"),
  PORT: port.default(3000),
  PUBLIC_BASE_URL: url(["http:", "https:"]).optional(),
  /**
   * Browser origins allowed to call the API (checkout pages): `*` for any, or a comma-separated
   * list of origins such as `https://shop.example.com`.
   */
  CORS_ORIGINS: z
    .string()
    .default("*")
    .transform((v) => v.split(",").map((s) => s.trim().replace(/\/+$/, "")).filter(Boolean))
    .refine((list) => list.length > 0 && list.every((o) => o === "*" || /^https?:\/\/[^/\s*]+$/.test(o)), "must be * or a comma-separated list of origins (scheme://host[:port]; no wildcards)")
    // As a browser sends its Origin (lower-case host, no default port): the list is matched exactly.
    .transform((list) => list.map((o) => (o === "*" ? o : new URL(o).origin))),
  DATABASE_URL: url(["postgres:", "postgresql:"]).optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  /** How long a role waits for Postgres to answer its probe before dropping its connections (a partition); 0: never. */
  DATABASE_PROBE_TIMEOUT_MS: z.coerce.number().int().refine((v) => v === 0 || (v >= 500 && v <= 120_000), "must be 0 (off) or 500 to 120000").default(5_000),
  REDIS_URL: url(["redis:", "rediss:"]).default("redis://127.0.0.1:6379"),
  QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_:-]+$/).default("stablepay"),
  /** How long the API waits for Redis to take a prompt before answering without it (or 503 where it is needed). */
  QUEUE_TIMEOUT_MS: z.coerce.number().int().min(50).max(30_000).default(1_000),
  /** Where the sandbox keeps its database, networks file and dev-stack.json. */
  DATA_DIR: z.string().min(1).default(".data"),
  NETWORKS_FILE: z.string().min(1).optional(),
  NETWORKS_DISABLED: z
    .string()
    .default("")
    .transform((v) => v.split(",").map((s) => s.trim()).filter(Boolean)),
  INDEXER_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]*$/).default("stablepay_indexer"),
  INDEXER_VIEWS_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]*$/).default("onchain"),
  /** Port of Ponder's own HTTP server (health/ready/status), bound to 127.0.0.1. */
  INDEXER_PORT: port.default(42069),
  /** A network is payable only while the indexer is at most this many blocks behind the head. */
  INDEXER_MAX_LAG_BLOCKS: z.coerce.number().int().min(0).default(5),
  /**
   * A chain's node whose newest block is older than this (not a local chain) is taken to be
   * stuck: ingest standing at its head proves nothing of the blocks since, so it is a stall.
   */
  NODE_STALE_AFTER_SECONDS: z.coerce.number().int().min(1).max(86_400).default(120),
  /** Blocks per `eth_getLogs` request when the replay CLI re-reads a range (providers cap the range: 1,000–10,000 typical). */
  REPLAY_BLOCK_RANGE: z.coerce.number().int().min(1).max(100_000).default(1_000),
  /**
   * How long after a payment's expiry its receive address is still watched (late money is
   * recorded and owed back); after that a transfer to it is not ingested (replay finds it).
   * Whole hours: Postgres' make_interval takes integer hours (a fraction failed every block the indexer read).
   */
  INDEXER_WATCH_AFTER_EXPIRY_HOURS: z.coerce.number().int().min(0).max(24 * 365).default(7 * 24),
  /**
   * EVM: an address is asked for in every block until this long after its payment's expiry;
   * for the rest of its watch, in ranges of INDEXER_LATE_SCAN_BLOCKS blocks (late money is
   * rare, and a week of a busy merchant's addresses asked for in every block cost more
   * requests than everything else the indexer does). At least the whole watch: every block, as before.
   */
  INDEXER_EVERY_BLOCK_AFTER_EXPIRY_MINUTES: z.coerce.number().int().min(0).max(24 * 365 * 60).default(60),
  /**
   * EVM: blocks per late-money scan. At most 63: the rows it finds land up to this many blocks
   * below the indexed head, and dispatch looks 64 blocks below its cursor for rows that appear there.
   */
  INDEXER_LATE_SCAN_BLOCKS: z.coerce.number().int().min(1).max(MAX_LATE_SCAN_BLOCKS).default(30),
  RPC_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(2_000),
  /**
   * The worker's EVM operator: the ForwarderFactory's `operator`, which alone sweeps and refunds
   * deposit addresses and pays their gas. Read by the worker only (`config/roles.ts`). Never logged.
   */
  OPERATOR_PRIVATE_KEY: evmPrivateKey.optional(),
  /**
   * The EVM operator's address, for the roles that do not hold its key (the API: deposit
   * availability, the health's gas balance, Relay's default refund address). Where the key is
   * set too, they must agree.
   */
  OPERATOR_ADDRESS: evmAddress.optional(),
  /**
   * Signs EIP-712 payment intents: the PaymentSettlement contract's `operator`. Read by the API
   * only. It moves no money: an intent only lets a customer pay a merchant what the service
   * asked. Never logged.
   */
  INTENT_SIGNER_PRIVATE_KEY: evmPrivateKey.optional(),
  /**
   * Solana: the operator's keypair (base58 secret key, or a JSON array of 64 bytes). It pays the
   * fees and rent of sweeps and refunds out of deposit addresses and receives the rent back.
   * Read by the worker only. Never logged.
   */
  SOLANA_OPERATOR_SECRET_KEY: z.string().min(1).optional(),
  /** The Solana operator's address, for the roles that do not hold its key (as OPERATOR_ADDRESS). */
  SOLANA_OPERATOR_ADDRESS: z.string().min(1).optional(),
  /**
   * The secret every Solana deposit key derives from (SLIP-0010, `m/44'/501'/<index>'/0'`): 32 to
   * 64 bytes as hex (`openssl rand -hex 32`). Held outside the database; read by the worker (and
   * `cli recover`) only. Never logged.
   */
  SOLANA_DEPOSIT_SEED: z
    .string()
    .trim()
    .regex(/^(0x)?([0-9a-fA-F]{2}){32,64}$/, "must be 32 to 64 bytes as hex (`openssl rand -hex 32`)")
    .optional(),
  /** Pre-derived Solana deposit addresses the worker keeps ready for the API to hand out. */
  SOLANA_DEPOSIT_POOL_SIZE: z.coerce.number().int().min(1).max(100_000).default(500),
  /** The worker tops the pool up to SOLANA_DEPOSIT_POOL_SIZE once fewer than this many are free. */
  SOLANA_DEPOSIT_POOL_REFILL_BELOW: z.coerce.number().int().min(1).max(100_000).default(100),
  /** Set by `scripts/role.ts` for the role's own processes (and Ponder's): which secrets its configuration keeps. */
  STABLEPAY_ROLE: z.enum(["api", "worker", "indexer", "solana", "relayer"]).optional(),
  /** Solana subscriber: how often every watched account is scanned (the backstop behind websockets and webhooks). */
  SOLANA_POLL_INTERVAL_MS: z.coerce.number().int().min(50).max(600_000).default(5_000),
  /** Solana subscriber: how often confirmed/finalized slots are read and new credits checked for finality. */
  SOLANA_HEAD_INTERVAL_MS: z.coerce.number().int().min(20).max(60_000).default(500),
  /** A Solana websocket silent this long (no slot notification) is replaced by a new one. */
  SOLANA_WS_STALE_MS: z.coerce.number().int().min(100).max(600_000).default(15_000),
  /** Hours an expired, failed or completed Solana payment's accounts stay watched for late money. */
  SOLANA_WATCH_AFTER_CLOSE_HOURS: z.coerce.number().min(0).max(24 * 365).default(72),
  /**
   * Solana: a closed payment's accounts are scanned on every poll (and followed over the
   * websocket) for this long after it closed; for the rest of their watch, once every
   * SOLANA_LATE_POLL_INTERVAL_MS (a scan lists everything since the last one: slower, never gapped).
   */
  SOLANA_EVERY_POLL_AFTER_CLOSE_MINUTES: z.coerce.number().int().min(0).max(24 * 60).default(60),
  SOLANA_LATE_POLL_INTERVAL_MS: z.coerce.number().int().min(50).max(3_600_000).default(60_000),
  /** Port (127.0.0.1 unless SOLANA_WEBHOOK_HOST says otherwise) of the Solana subscriber's Helius webhook receiver; 0 disables it. */
  SOLANA_WEBHOOK_PORT: port.default(0),
  SOLANA_WEBHOOK_HOST: z.string().min(1).default("127.0.0.1"),
  /** Helius: API key (registers the watched addresses with a webhook) and the `authHeader` every delivery must carry. */
  HELIUS_API_KEY: z.string().min(1).optional(),
  HELIUS_WEBHOOK_AUTH_HEADER: z.string().min(16, "at least 16 characters (a random secret)").optional(),
  /** Public URL Helius posts to (the subscriber's receiver behind your proxy), e.g. https://pay.example.com/solana/helius. */
  HELIUS_WEBHOOK_URL: url(["https:", "http:"]).optional(),
  /** A sweep or refund transaction not mined after this many seconds is re-sent with higher fees (same nonce). */
  TRANSFER_REPLACE_AFTER: z.coerce.number().min(1).max(24 * 3600).default(180),
  /**
   * The least a refund sends, in token units (USDC, USDT: about a dollar). Less is refused:
   * anyone holding a payment id may ask, and each refund costs the operator a transaction.
   */
  REFUND_MIN_AMOUNT: z.string().trim().regex(/^\d{1,12}(\.\d{1,6})?$/, "a decimal amount of the token, e.g. 0.50 (at most 6 decimals)").default("0.50"),
  /** Service fee in basis points of each payment, paid atomically by the settlement contract. */
  FEE_BPS: z.coerce.number().int().min(0).max(10_000).default(0),
  FEE_RECIPIENT: evmAddress.optional(),
  /** Default lifetime of a payment, seconds. */
  PAYMENT_EXPIRES_IN: z.coerce.number().int().min(60).max(30 * 24 * 3600).default(1800),
  PAYMENT_MAX_EXPIRES_IN: z.coerce.number().int().min(60).max(30 * 24 * 3600).default(7 * 24 * 3600),
  /** The longest `expiresIn` a payment created with a public key alone may ask (key + secret: PAYMENT_MAX_EXPIRES_IN). */
  PUBLIC_KEY_MAX_EXPIRES_IN: z.coerce.number().int().min(1800).max(30 * 24 * 3600).default(24 * 3600),
  /** Open (pending) payments one merchant may have per mode; past it creates answer 409. */
  MAX_OPEN_PAYMENTS: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
  /** Public-key creates stop at this many open payments of the merchant and mode; the rest is left to key + secret creates. */
  MAX_OPEN_PAYMENTS_PUBLIC_KEY: z.coerce.number().int().min(1).max(10_000_000).default(2_000),
  /** A create with neither Idempotency-Key nor orderId is a retry of an identical body only this long after it (spec rule 3). */
  IDEMPOTENCY_BODY_WINDOW_SECONDS: z.coerce.number().int().min(1).max(24 * 3600).default(60),
  /** The deprecated public-key reads of /payments/merchant/list and /stats (spec rule 4): `off` answers them 401. */
  PUBLIC_KEY_ACCOUNT_READS: z.enum(["on", "off"]).default("on"),
  /** Rate limits per public key, API key and client IP (Redis, per process while Redis is down): `off` for none. */
  RATE_LIMITS: z.enum(["on", "off"]).default("on"),
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  /** Requests per window: creates (payments, deposits, cross-chain, sandbox) and everything else ("reads"), per credential. */
  RATE_LIMIT_PUBLIC_KEY_CREATES: z.coerce.number().int().min(1).default(60),
  RATE_LIMIT_PUBLIC_KEY_READS: z.coerce.number().int().min(1).default(3_000),
  RATE_LIMIT_API_KEY_CREATES: z.coerce.number().int().min(1).default(600),
  RATE_LIMIT_API_KEY_READS: z.coerce.number().int().min(1).default(12_000),
  /** Per client IP, for calls with a public key or no credentials (key + secret calls: the API key figures, per IP). */
  RATE_LIMIT_IP_CREATES: z.coerce.number().int().min(1).default(60),
  RATE_LIMIT_IP_READS: z.coerce.number().int().min(1).default(1_200),
  /**
   * Where the client's IP comes from behind a proxy you run (e.g. `x-forwarded-for`: its last
   * entry, the one your proxy added; `x-real-ip`, `cf-connecting-ip`). Unset: the connection's address.
   */
  RATE_LIMIT_CLIENT_IP_HEADER: z.string().regex(/^[A-Za-z0-9-]{1,64}$/, "must be a header name, e.g. x-forwarded-for").transform((v) => v.toLowerCase()).optional(),
  /** Threads that sign payment intents beside the API's request handling (0: on the request's thread). */
  SIGNING_THREADS: z.coerce.number().int().min(0).max(16).default(1),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** Seconds to wait before each retry of a webhook delivery (the first attempt is immediate); ~3 days in all. */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default("5,300,1800,7200,18000,36000,36000,50400,50400,50400")
    .refine((v) => v.split(",").every((s) => /^\d+(\.\d+)?$/.test(s.trim())), "must be comma-separated seconds, e.g. 5,300,1800"),
  /** A delivery attempt that has no answer after this long is a failure (retried). */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(15_000),
  /** How often the relay looks for deliveries that are due but have no job (Redis flushed, worker killed). */
  WEBHOOK_REDRIVE_INTERVAL_MS: z.coerce.number().int().min(50).max(3_600_000).default(15_000),
  /** After a secret rotation the previous secret keeps signing (a second signature) this long. */
  /** Encrypts stored webhook signing secrets: 32 bytes, base64 or hex. Required in production. */
  SECRETS_KEY: z.string().min(1).optional(),
  WEBHOOK_SECRET_OVERLAP_HOURS: z.coerce.number().min(0).max(30 * 24).default(24),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(500).default(16),
  /** Attempts to one URL in flight at once, across all workers: a receiver that hangs holds this many slots, not every worker's. */
  WEBHOOK_MAX_IN_FLIGHT_PER_URL: z.coerce.number().int().min(1).max(500).default(4),
  /** Attempts to one merchant's URLs in flight at once, across all workers: a merchant whose many URLs hang (or vary only in their query) leaves the other merchants' webhooks their slots. */
  WEBHOOK_MAX_IN_FLIGHT_PER_MERCHANT: z.coerce.number().int().min(1).max(500).default(8),
  /**
   * Where test-mode webhooks may go: `public` addresses only (as live ones), or `any` (a
   * receiver on the merchant's own machine or network). Default: `public` when
   * APP_ENV=production, `any` otherwise.
   */
  WEBHOOK_TEST_TARGETS: z.enum(["any", "public"]).optional(),
  /** How many times a merchant may redeliver one event (`POST /events/{id}/redeliver`) in an hour; past it, 429 with Retry-After. */
  WEBHOOK_REDELIVERIES_PER_HOUR: z.coerce.number().int().min(1).max(1_000).default(10),
  /** Live checkout streams (Server-Sent Events) one API process holds at most; past it, pages poll. */
  CHECKOUT_MAX_STREAMS: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
  /** Where fiat exchange rates come from: a configured table, or an HTTP source. */
  RATES_PROVIDER: z.enum(["static", "http"]).default("static"),
  /** Static table, units of each currency per one US dollar: "EUR=0.92,NGN=1550". */
  RATES_STATIC: z.string().default(""),
  /** HTTP source answering `{base_code|base: "USD", rates: {...}, time_last_update_unix}` (open.er-api.com's shape). */
  RATES_URL: url(["http:", "https:"]).default("https://open.er-api.com/v6/latest/USD"),
  RATES_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(3_000),
  /** How long fetched rates are reused before asking the source again. */
  RATES_CACHE_TTL_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  /** Rates older than this (by the source's own timestamp) are stale: shown, never used for a payment. */
  RATES_MAX_AGE_SECONDS: z.coerce.number().int().min(60).max(30 * 86_400).default(36 * 3600),
  /** The bridge for cross-chain routes BRIDGE_ROUTES does not list: `none`, `relay` or `local`. */
  BRIDGE_ADAPTER: z.enum(["none", "relay", "local"]).default("none"),
  /** Per-route bridges, comma-separated `origin>destination=adapter` (short names, chain ids or `*`); the first match wins. */
  BRIDGE_ROUTES: z.string().default(""),
  /**
   * Where Relay refunds a customer on the origin chain; `BRIDGE_REFUND_ADDRESS_<chainId>` per chain
   * (`none`: no refunds there). Default: the operator's address.
   */
  BRIDGE_REFUND_ADDRESS: evmAddress.optional(),
  /** How often an open bridge request is read again. */
  BRIDGE_POLL_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
  /** Relay's API for mainnets, and for testnets (a separate base URL). */
  RELAY_API_URL: url(["http:", "https:"]).default("https://api.relay.link"),
  RELAY_TESTNET_API_URL: url(["http:", "https:"]).default("https://api.testnets.relay.link"),
  /** Relay's API key: sent on every call, needed for /requests/v3, and the webhook signing secret. */
  RELAY_API_KEY: z.string().min(1).optional(),
  RELAY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** How long after a deposit's block Relay is taken to report it: a cross-chain payment expires only after a read this late. */
  RELAY_DEPOSIT_LAG_MS: z.coerce.number().int().min(0).max(3_600_000).default(RELAY_DEPOSIT_LAG_MS),
  /** The local bridge's relayer (sandbox): its key holds liquidity on every chain it serves. */
  BRIDGE_LOCAL_RELAYER_KEY: evmPrivateKey.optional(),
  /** The local relayer's fee, in basis points of what it delivers, added to what the customer sends. */
  BRIDGE_LOCAL_FEE_BPS: z.coerce.number().int().min(0).max(1_000).default(10),
  /**
   * USD per whole native coin of the local bridge's chains (their gas money), for its minimum:
   * the relayer's fee must cover the fill's gas at the chain's gas price. The sandbox's coin is
   * a test coin: 2 puts anvil's ~1 gwei token transfer at about $0.0001, a minimum of ~$0.10.
   */
  BRIDGE_LOCAL_NATIVE_USD: z
    .string()
    .trim()
    .regex(/^\d{1,12}(\.\d{1,6})?$/, "a decimal amount of US dollars, e.g. 2 or 2500.50 (at most 6 decimals)")
    .refine((v) => /[1-9]/.test(v), "must be greater than 0")
    .default("2"),
  /** Origin-chain confirmations a deposit needs before the local relayer acts on it. */
  BRIDGE_LOCAL_CONFIRMATIONS: z.coerce.number().int().min(1).max(1_000).default(1),
  /** How often the local relayer looks at its chains. */
  BRIDGE_LOCAL_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
  /**
   * Operators' bearer token for `/metrics` and the queue dashboard (every role). Unset: both
   * are off. Never logged.
   */
  OPERATOR_TOKEN: z.string().regex(/^[\x21-\x7e]{16,512}$/, "must be 16 to 512 printable characters without spaces (e.g. `openssl rand -hex 32`)").optional(),
  /** Where the worker and indexer roles serve their `/metrics` (the API serves it on its own port); 0 turns one off. */
  METRICS_HOST: z.string().min(1).optional(),
  WORKER_METRICS_PORT: port.default(9464),
  INDEXER_METRICS_PORT: port.default(9465),
  SOLANA_METRICS_PORT: port.default(9466),
  /**
   * How long the worker exporting the shared-state gauges (queue depths, transfers out) holds
   * its lease; it renews it every third of that. When it dies another worker takes over once
   * the lease has run out.
   */
  METRICS_LEASE_SECONDS: z.coerce.number().int().min(2).max(3_600).default(30),
  /** The queue dashboard at /admin/queues: `read-only` (default), `read-write` (retry, remove, pause jobs) or `off`. */
  QUEUE_DASHBOARD: z.enum(["read-only", "read-write", "off"]).default("read-only"),
});

export type Env = z.infer<typeof envSchema>;

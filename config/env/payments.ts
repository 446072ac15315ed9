import { z } from "zod";
import { envSection } from "./section.ts";
import { onOff } from "./formats.ts";

const seconds = z.coerce.number().int().min(60).max(30 * 24 * 3600);
const openPayments = z.coerce.number().int().min(1).max(10_000_000);
const perWindow = z.coerce.number().int().min(1);

export const paymentsEnv = envSection(
  "Payments and limits",
  "How long payments live, and what one caller may ask for: what a stranger holding the public key can do is bounded here.",
  {
    PAYMENT_EXPIRES_IN: seconds.default(1800).describe("Seconds a payment lives when its create names no `expiresIn`. Must not exceed PAYMENT_MAX_EXPIRES_IN nor PUBLIC_KEY_MAX_EXPIRES_IN. Read by: api."),
    PAYMENT_MAX_EXPIRES_IN: seconds.default(7 * 24 * 3600).describe("Seconds: the longest `expiresIn` a create with key + secret may ask. Read by: api."),
    PUBLIC_KEY_MAX_EXPIRES_IN: z.coerce
      .number()
      .int()
      .min(1800)
      .max(30 * 24 * 3600)
      .default(24 * 3600)
      .describe("Seconds: the longest `expiresIn` a payment created with a public key alone may ask (capped by PAYMENT_MAX_EXPIRES_IN). Read by: api."),
    MAX_OPEN_PAYMENTS: openPayments.default(10_000).describe("Open (pending) payments one merchant may have per mode; past it creates answer 409. Read by: api."),
    MAX_OPEN_PAYMENTS_PUBLIC_KEY: openPayments.default(2_000).describe("Open payments of a merchant and mode past which public-key creates stop (answer 409); the rest is left to key + secret creates. At most MAX_OPEN_PAYMENTS. Read by: api."),
    IDEMPOTENCY_BODY_WINDOW_SECONDS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 3600)
      .default(60)
      .describe("Seconds: a create with neither Idempotency-Key nor orderId is a retry of an identical body only this long after it (spec rule 3). Read by: api."),
    PUBLIC_KEY_ACCOUNT_READS: onOff.default("on").describe("The deprecated public-key reads of `/payments/merchant/list` and `/stats` (spec rule 4): `off` answers them 401. Read by: api."),
    CHECKOUT_MAX_STREAMS: z.coerce.number().int().min(0).max(1_000_000).default(10_000).describe("Live checkout streams (Server-Sent Events) one API process holds at most; past it, checkout pages poll. Read by: api."),
    X402_SETTLE_WAIT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(120_000)
      .default(15_000)
      .describe("Milliseconds POST /x402/settle waits for the worker to settle an authorization before it answers `settlement_pending` (the agent must not pay again). Read by: api."),
    X402_CONFIRMATION_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(600_000)
      .default(10_000)
      .describe("Milliseconds the worker waits for an x402 settlement's receipt (on Solana, its confirmation) before recording it as broadcast (pending) and looking again later. Read by: worker."),
    X402_DAILY_GAS_CAP_WEI: z
      .string()
      .trim()
      .regex(/^\d{1,40}$/, "a whole number of wei")
      .default("100000000000000000")
      .describe("The most the operator's gas for one merchant's x402 settlements on one chain may cost per UTC day, in the chain's native wei (default 0.1 of the coin; on Solana the same share of SOL, in lamports this ÷ 10⁹); past it, settles answer `gas_cap_reached`. Read by: api."),
    RATE_LIMITS: onOff.default("on").describe("Rate limits per public key, API key and client IP (counted in Redis; per process while Redis is down): `off` for none. Read by: api."),
    RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().min(1).max(3600).default(60).describe("Seconds of the window every RATE_LIMIT_* budget counts requests in. Read by: api."),
    RATE_LIMIT_PUBLIC_KEY_CREATES: perWindow.default(60).describe("Creates (payments, deposits, cross-chain, sandbox) per window per public key. Read by: api."),
    RATE_LIMIT_PUBLIC_KEY_READS: perWindow.default(3_000).describe("Every other request per window per public key. Read by: api."),
    RATE_LIMIT_API_KEY_CREATES: perWindow.default(600).describe("Creates per window per API key (key + secret calls); also the per-IP budget of key + secret calls. Read by: api."),
    RATE_LIMIT_API_KEY_READS: perWindow.default(12_000).describe("Every other request per window per API key; also the per-IP budget of key + secret calls. Read by: api."),
    RATE_LIMIT_IP_CREATES: perWindow.default(60).describe("Creates per window per client IP, for calls with a public key or no credentials. Read by: api."),
    RATE_LIMIT_IP_READS: perWindow.default(1_200).describe("Every other request per window per client IP, for calls with a public key or no credentials. Read by: api."),
    RATE_LIMIT_CLIENT_IP_HEADER: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,64}$/, "must be a header name, e.g. x-forwarded-for")
      .transform((v) => v.toLowerCase())
      .optional()
      .describe("Header the client's IP comes from behind a proxy you run (`x-forwarded-for`: its last entry, the one your proxy added; `x-real-ip`, `cf-connecting-ip`). Unset: the connection's address. Read by: api."),
  },
);

import { z } from "zod";
import { envSection } from "./section.ts";
import { evmAddress, evmPrivateKey, url } from "./formats.ts";

/** How long after a deposit's block Relay is taken to report it, unless configured (`RELAY_DEPOSIT_LAG_MS`). */
export const RELAY_DEPOSIT_LAG_MS = 60_000;

export const bridgeEnv = envSection(
  "Cross-chain payments",
  "Which bridge serves which route (Relay, or the sandbox's local relayer), where bridges refund customers, and each adapter's settings.",
  {
    BRIDGE_ADAPTER: z.enum(["none", "relay", "local"]).default("none").describe("The bridge for cross-chain routes BRIDGE_ROUTES does not list: `none`, `relay` or `local`. Read by: api, worker."),
    BRIDGE_ROUTES: z
      .string()
      .default("")
      .describe("Per-route bridges, comma-separated `origin>destination=adapter` (short names, chain ids or `*`; adapter `relay`, `local` or `none`), e.g. `anvil-2>anvil=local,*>*=relay`; the first match wins. Read by: api, worker."),
    BRIDGE_REFUND_ADDRESS: evmAddress
      .optional()
      .describe("Where Relay refunds a customer on the origin chain, unless BRIDGE_REFUND_ADDRESS_<chainId> says otherwise. Unset: the operator's address. Read by: api."),
    BRIDGE_POLL_INTERVAL_MS: z.coerce.number().int().min(100).max(600_000).default(5_000).describe("Milliseconds between reads of an open bridge request. Read by: worker."),
    RELAY_API_URL: url(["http:", "https:"]).default("https://api.relay.link").describe("Relay's API for mainnets (or a proxy in front of it). Read by: api, worker."),
    RELAY_TESTNET_API_URL: url(["http:", "https:"]).default("https://api.testnets.relay.link").describe("Relay's API for testnets: a separate base URL, same paths. Read by: api, worker."),
    RELAY_API_KEY: z
      .string()
      .min(1)
      .optional()
      .describe("Relay's API key: sent on every call, needed for `/requests/v3`, and the secret Relay signs its webhooks with. Read by: api, worker."),
    RELAY_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000).describe("Milliseconds one HTTP attempt to Relay may take, reading the body included. Read by: api, worker."),
    RELAY_DEPOSIT_LAG_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(3_600_000)
      .default(RELAY_DEPOSIT_LAG_MS)
      .describe("Milliseconds after a deposit's block Relay is taken to report it: a cross-chain payment expires only after a read this late. Read by: api, worker."),
    BRIDGE_LOCAL_RELAYER_KEY: evmPrivateKey
      .optional()
      .describe("The local bridge's relayer key (sandbox): it holds liquidity on every chain it serves. Required by the relayer role when a route uses `local`. Read by: relayer."),
    BRIDGE_LOCAL_FEE_BPS: z.coerce.number().int().min(0).max(1_000).default(10).describe("The local relayer's fee, in basis points of what it delivers, added to what the customer sends. Read by: api, relayer."),
    BRIDGE_LOCAL_NATIVE_USD: z
      .string()
      .trim()
      .regex(/^\d{1,12}(\.\d{1,6})?$/, "a decimal amount of US dollars, e.g. 2 or 2500.50 (at most 6 decimals)")
      .refine((v) => /[1-9]/.test(v), "must be greater than 0")
      .default("2")
      .describe("US dollars per whole native coin of the local bridge's chains, for its minimum: the relayer's fee must cover the fill's gas at the chain's gas price (2 puts anvil's token transfer at about $0.0001, a minimum of about $0.10). Read by: api, relayer."),
    BRIDGE_LOCAL_CONFIRMATIONS: z.coerce.number().int().min(1).max(1_000).default(1).describe("Origin-chain confirmations a deposit needs before the local relayer acts on it. Read by: relayer."),
    BRIDGE_LOCAL_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000).describe("Milliseconds between the local relayer's looks at its chains. Read by: relayer."),
  },
);

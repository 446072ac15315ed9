/** Relay's production API (docs.relay.link, "API Overview"). */
export const RELAY_MAINNET_URL = "https://api.relay.link";
/** Relay's testnet API: a separate base URL, same paths (docs.relay.link, "Testnet Support"). */
export const RELAY_TESTNET_URL = "https://api.testnets.relay.link";

export { RELAY_DEPOSIT_LAG_MS } from "../../../config/env.ts";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export type RelayAdapterOptions = {
  /** `RELAY_MAINNET_URL`, `RELAY_TESTNET_URL`, or a proxy in front of either. */
  baseUrl: string;
  /**
   * Sent as `x-api-key` on every call. Needed for `GET /requests/v3`, for webhooks (Relay posts
   * events only for requests quoted with the key) and as the webhook signing secret.
   */
  apiKey?: string;
  /** Per HTTP attempt, including reading the body. */
  timeoutMs: number;
  fetch?: FetchLike;
  /** Retries after a 429 (default 2). */
  maxRetries?: number;
  /** The longest Retry-After we wait for (default 2000 ms); a longer one fails at once. */
  maxRetryDelayMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /**
   * How long after a deposit's block Relay is taken to have reported it (default
   * RELAY_DEPOSIT_LAG_MS): a status read covers deposits stamped this long before it.
   */
  depositLagMs?: number;
  now?: () => Date;
};

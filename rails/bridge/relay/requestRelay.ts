import { BridgeUnavailableError } from "../../../domain/errors.ts";
import type { RelayAdapterOptions } from "./types.ts";

export type RelayCall = {
  method: "GET" | "POST";
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
};

/** Relay's answer: the HTTP status and the parsed JSON body (undefined when a non-2xx body is not JSON). */
export type RelayAnswer = { status: number; body: unknown };

const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_MAX_RETRY_DELAY_MS = 2_000;
/** Without a Retry-After, wait 250 ms, then 500 ms. */
const FALLBACK_DELAY_MS = 250;

/**
 * One call to Relay's API. A 429 is tried again up to `maxRetries` times, never sooner
 * than its Retry-After says (docs: retry 429s with backoff; /requests/v2 sends none, so
 * then a short backoff). Throws BridgeUnavailableError for no answer within `timeoutMs`,
 * a connection failure, 429s to the end, or a 2xx body that is not JSON; any other status
 * is returned for the caller to interpret.
 */
export async function requestRelay(options: RelayAdapterOptions, call: RelayCall): Promise<RelayAnswer> {
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? (() => new Date());
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const maxDelay = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;

  const url = new URL(`${options.baseUrl.replace(/\/+$/, "")}${call.path}`);
  for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
  const headers: Record<string, string> = { accept: "application/json" };
  if (call.body !== undefined) headers["content-type"] = "application/json";
  if (options.apiKey) headers["x-api-key"] = options.apiKey;
  const what = `${call.method} ${call.path}`;

  for (let attempt = 0; ; attempt++) {
    let status: number;
    let text: string;
    let retryAfter: string | null;
    try {
      const response = await doFetch(url.toString(), {
        method: call.method,
        headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      status = response.status;
      retryAfter = response.headers.get("retry-after");
      text = await response.text();
    } catch (error) {
      const e = error as Error;
      const timedOut = e.name === "TimeoutError" || e.name === "AbortError";
      throw new BridgeUnavailableError("relay", timedOut ? `${what}: no answer within ${options.timeoutMs} ms` : `${what}: ${e.message}`, { cause: error });
    }

    if (status === 429) {
      const delay = retryDelayMs(retryAfter, attempt, now());
      if (attempt >= maxRetries || delay > maxDelay) {
        throw new BridgeUnavailableError("relay", `${what}: rate limited (429) after ${attempt + 1} attempt(s)`, { httpStatus: 429 });
      }
      await sleep(delay);
      continue;
    }

    let body: unknown;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch (error) {
      if (status >= 200 && status < 300) throw new BridgeUnavailableError("relay", `${what}: the answer is not JSON`, { cause: error, httpStatus: status });
      body = undefined;
    }
    return { status, body };
  }
}

/** Retry-After in seconds or as an HTTP date (RFC 9110), else the fallback backoff. */
function retryDelayMs(retryAfter: string | null, attempt: number, now: Date): number {
  const value = retryAfter?.trim() ?? "";
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = value ? Date.parse(value) : Number.NaN;
  if (!Number.isNaN(at)) return Math.max(0, at - now.getTime());
  return FALLBACK_DELAY_MS * 2 ** attempt;
}

import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";

/** The most of a response body that is kept in the attempt log. */
export const EXCERPT_BYTES = 1024;

export type WebhookResponse = { statusCode: number; excerpt: string | null };

export class WebhookRequestError extends Error {
  override name = "WebhookRequestError";
  constructor(
    message: string,
    readonly timedOut: boolean,
  ) {
    super(message);
  }
}

/** A lookup that answers only these addresses: the connection goes where the check looked. */
function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, entries);
    else callback(null, entries[0]!.address, entries[0]!.family);
  }) as unknown as LookupFunction;
}

/**
 * POSTs one webhook and reads at most `EXCERPT_BYTES` of the answer. With `addresses`
 * (the ones the SSRF check approved) the socket connects only to those: a DNS answer
 * that changed since the check (rebinding) cannot redirect it, while the Host header
 * and TLS name stay the URL's. Redirects are not followed; the whole exchange is
 * bounded by `timeoutMs`. A receiver that answered its status but never ends the body
 * has answered: at the timeout its status counts, with what it sent of the body.
 */
export function postWebhook(
  url: string,
  options: { headers: Record<string, string>; body: string; timeoutMs: number; addresses?: readonly string[] },
): Promise<WebhookResponse> {
  const target = new URL(url);
  const client = target.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    // Set once the status line and headers are in.
    let answered: (() => void) | null = null;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const request = client.request(
      target,
      {
        method: "POST",
        headers: { ...options.headers, "content-length": String(Buffer.byteLength(options.body)) },
        ...(options.addresses?.length ? { lookup: pinnedLookup(options.addresses) } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          const bytes = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES);
          finish(() => resolve({ statusCode: response.statusCode ?? 0, excerpt: bytes.length === 0 ? null : new TextDecoder().decode(bytes) }));
          response.destroy();
        };
        answered = done;
        response.on("data", (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          if (size >= EXCERPT_BYTES) done(); // the rest is not read
        });
        response.on("end", done);
        response.on("error", done);
      },
    );
    const timer = setTimeout(() => {
      if (answered) answered();
      else finish(() => reject(new WebhookRequestError(`no response within ${options.timeoutMs} ms`, true)));
      request.destroy();
    }, options.timeoutMs);
    // A connection reset after the status line is an answer cut short, not an unanswered request:
    // a 200 (or 410) sent and then reset is that status.
    request.on("error", (error) => (answered ? answered() : finish(() => reject(new WebhookRequestError(`request failed: ${error.message}`, false)))));
    request.end(options.body);
  });
}

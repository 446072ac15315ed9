import { Elysia } from "elysia";
import { HeadersTooLargeError, PayloadTooLargeError, ValidationError } from "../../domain/errors.ts";

/**
 * What one request may carry. The header limit is Bun's own default, so the in-process
 * answer matches the server's (over the wire Bun answers that 431 itself, without a body).
 */
export const REQUEST_LIMITS = { maxBodyBytes: 1024 * 1024, maxHeaderBytes: 16 * 1024, maxJsonDepth: 32 } as const;

/**
 * Bun.serve's own cut-off (`maxRequestBodySize`), above ours: a body declared over our
 * limit reaches the app and gets the error body; only one over this gets Bun's bare 413.
 */
export const SERVER_MAX_BODY_BYTES = 8 * REQUEST_LIMITS.maxBodyBytes;

function headerBytes(headers: Headers): number {
  let total = 0;
  headers.forEach((value, name) => {
    total += name.length + value.length + 4;
  });
  return total;
}

/** True when `value` nests objects/arrays deeper than `limit` (iterative: a deep body cannot overflow the stack). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== "object") continue;
    if (depth >= limit) return true;
    for (const child of Array.isArray(item) ? item : Object.values(item)) if (child !== null && typeof child === "object") stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Refuses oversized requests before any work (413 / 431 with the error body), and bodies
 * nested deeper than any route reads before validation, whose error report would
 * otherwise serialise the whole structure (a 20,000-deep array ran out of memory: 500).
 */
export const requestLimitsPlugin = () => {
  // Elysia turns an error thrown while parsing into "not valid JSON": an oversized chunked
  // body is marked there and refused in the next hook instead.
  const oversized = new WeakSet<Request>();
  const tooLarge = () => new PayloadTooLargeError(`Request body is over ${REQUEST_LIMITS.maxBodyBytes} bytes.`);
  return new Elysia({ name: "request-limits" })
    .onRequest(({ request, server }) => {
      // Served by Bun, the headers were already held to the same limit (walking them costs every request).
      if (!server && headerBytes(request.headers) > REQUEST_LIMITS.maxHeaderBytes)
        throw new HeadersTooLargeError(`Request headers are over ${REQUEST_LIMITS.maxHeaderBytes} bytes.`);
      const length = Number(request.headers.get("content-length") ?? 0);
      if (length > REQUEST_LIMITS.maxBodyBytes) throw tooLarge();
    })
    .onParse({ as: "global" }, async ({ request }) => {
      // A chunked body declares no length: measured on a copy (Bun.serve bounds it) before the parser reads it.
      if (!request.body || request.headers.has("content-length")) return;
      if ((await request.clone().arrayBuffer()).byteLength <= REQUEST_LIMITS.maxBodyBytes) return;
      oversized.add(request);
      return {};
    })
    .onTransform({ as: "global" }, ({ request, body }) => {
      if (oversized.has(request)) throw tooLarge();
      if (nestsDeeperThan(body, REQUEST_LIMITS.maxJsonDepth))
        throw new ValidationError("body", `Invalid request body: nested deeper than ${REQUEST_LIMITS.maxJsonDepth} levels`);
    });
};

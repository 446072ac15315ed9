import type { Logger } from "../../../config/logger.ts";
import { addressesInHeliusPayload, heliusAuthorized, isHeliusPayload } from "./heliusPayload.ts";

/**
 * A delivery's largest body: a batch of enhanced transactions is some kilobytes each; a
 * larger body is refused (413) before it is read into memory.
 */
const MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * The subscriber's receiver for Helius webhooks: a delivery must carry the configured
 * `authHeader` in `Authorization` (401 otherwise) and be an enhanced webhook's payload
 * (400 otherwise); its addresses only prompt a scan of the watched ones (`onAddresses`),
 * answered 200 at once. Helius retries a failed delivery a few times and then drops it,
 * so the poller stays the backstop.
 */
export function serveHeliusWebhook(options: { host: string; port: number; authHeader: string; logger: Logger; onAddresses: (addresses: Set<string>) => void }) {
  const server = Bun.serve({
    hostname: options.host,
    port: options.port,
    maxRequestBodySize: MAX_BODY_BYTES,
    async fetch(request) {
      if (request.method !== "POST") return new Response("method not allowed", { status: 405 });
      if (!heliusAuthorized(request.headers.get("authorization"), options.authHeader)) return new Response("unauthorized", { status: 401 });
      let body: unknown;
      try {
        body = await request.json();
      } catch {
        return new Response("invalid JSON", { status: 400 });
      }
      if (!isHeliusPayload(body)) return new Response("not an enhanced webhook payload", { status: 400 });
      options.onAddresses(addressesInHeliusPayload(body));
      return new Response("ok");
    },
  });
  options.logger.info({ port: server.port }, "helius webhook receiver listening");
  return { port: server.port!, stop: () => server.stop(true) };
}

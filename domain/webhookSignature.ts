import { randomBytes, timingSafeEqual } from "node:crypto";
import { Webhook, WebhookVerificationError } from "standardwebhooks";

/**
 * Standard Webhooks signing and verification (https://www.standardwebhooks.com),
 * through the spec's own library: the HMAC-SHA256 of `id.timestamp.body`, base64,
 * sent as `webhook-signature: v1,<sig>`; several space-separated while a secret is
 * being rotated. Import `verifyWebhook` in a merchant's server to check our webhooks.
 */

export { WebhookVerificationError };

/** A new signing secret: `whsec_` + base64 of 32 random bytes (the spec allows 24–64). */
export const generateWebhookSecret = () => `whsec_${randomBytes(32).toString("base64")}`;

export type WebhookHeaders = { "webhook-id": string; "webhook-timestamp": string; "webhook-signature": string };

/**
 * Headers for one delivery attempt. `msgId` is the event id (the same on every
 * attempt, so receivers can deduplicate); the timestamp is the attempt's; each secret
 * (current first, then one still inside its rotation overlap) adds a signature.
 */
export function signWebhook(input: { msgId: string; timestamp: Date; body: string; secrets: readonly string[] }): WebhookHeaders {
  if (input.secrets.length === 0) throw new Error("signWebhook: no secret");
  return {
    "webhook-id": input.msgId,
    "webhook-timestamp": String(Math.floor(input.timestamp.getTime() / 1000)),
    "webhook-signature": input.secrets.map((secret) => new Webhook(secret).sign(input.msgId, input.timestamp, input.body)).join(" "),
  };
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/**
 * Checks a webhook we sent: the headers are present, the timestamp is within
 * `toleranceSeconds` of now (default 300, either way: replays of an old message are
 * refused), and one of the `v1` signatures is the one `secret` gives for exactly these
 * bytes. Returns the parsed JSON body; throws `WebhookVerificationError` otherwise.
 * Pass the raw request body, before any JSON parsing.
 *
 * The signature is computed by `standardwebhooks` (`Webhook.sign`), compared in
 * constant time; the timestamp check is here so the tolerance can be chosen.
 */
export function verifyWebhook(
  payload: string | Buffer | Uint8Array,
  headers: HeaderSource,
  secret: string,
  options: { toleranceSeconds?: number; now?: Date } = {},
): unknown {
  const body = typeof payload === "string" ? payload : Buffer.from(payload).toString("utf8");
  const msgId = header(headers, "webhook-id");
  const timestampHeader = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!msgId || !timestampHeader || !signatures) throw new WebhookVerificationError("Missing required headers");

  if (!/^\d{1,12}$/.test(timestampHeader)) throw new WebhookVerificationError("Invalid Signature Headers");
  const timestamp = Number(timestampHeader);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (now - timestamp > tolerance) throw new WebhookVerificationError("Message timestamp too old");
  if (timestamp - now > tolerance) throw new WebhookVerificationError("Message timestamp too new");

  const expected = Buffer.from(new Webhook(secret).sign(msgId, new Date(timestamp * 1000), body).slice("v1,".length));
  for (const versioned of signatures.split(" ")) {
    const [version, signature] = versioned.split(",");
    if (version !== "v1" || !signature) continue;
    const given = Buffer.from(signature);
    if (given.length === expected.length && timingSafeEqual(given, expected)) return body === "" ? undefined : JSON.parse(body);
  }
  throw new WebhookVerificationError("No matching signature found");
}

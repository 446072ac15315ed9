import type { Mode, WebhooksConfig } from "../../config/index.ts";
import type { Db } from "../../db/client.ts";
import { insertWebhookEndpointWithin, type WebhookEndpointRow } from "../../db/webhookEndpoints.ts";
import { ConflictError, ValidationError } from "../../domain/errors.ts";
import type { SecretBox } from "../../domain/secretBox.ts";
import { isPaymentEventType, paymentEventTypes } from "../../domain/paymentEvents.ts";
import { assertWebhookUrl } from "./assertWebhookUrl.ts";
import { publicTargetsOnly } from "../../webhooks/publicTargetsOnly.ts";

/**
 * Endpoints one account may have in one mode (Stripe's limit too). Every event is written
 * once per endpoint inside the transaction that records it, which holds other merchants'
 * payments too: an unbounded list would slow everyone's settlement.
 */
export const MAX_WEBHOOK_ENDPOINTS = 16;

/** An endpoint's event filter: absent means all (`["*"]`); otherwise known types, deduplicated. */
export function parseEventFilter(field: string, value: unknown): string[] {
  if (value === undefined || value === null) return ["*"];
  const list = value;
  if (!Array.isArray(list) || list.length === 0) {
    throw new ValidationError(field, `Invalid field '${field}': expected a non-empty list of event types, or ["*"] for all`);
  }
  const types: string[] = [];
  for (const [i, item] of list.entries()) {
    if (typeof item !== "string" || (item !== "*" && !isPaymentEventType(item))) {
      throw new ValidationError(`${field}.${i}`, `Invalid field '${field}.${i}': ${JSON.stringify(item)} is not "*" or one of ${paymentEventTypes.join(", ")}`);
    }
    if (!types.includes(item)) types.push(item);
  }
  return types.includes("*") ? ["*"] : types;
}

/**
 * Registers a webhook endpoint: an http(s) URL (in live mode resolving only to public
 * addresses) and an event filter. The endpoint gets its own `whsec_` secret.
 */
export async function registerWebhookEndpoint(
  db: Db,
  webhooks: { box: SecretBox; testTargets: WebhooksConfig["testTargets"] },
  auth: { merchantId: string; mode: Mode },
  input: { url: unknown; events?: unknown; description?: unknown },
): Promise<WebhookEndpointRow> {
  const url = typeof input.url === "string" ? input.url.trim() : "";
  if (url === "" || url.length > 2048) throw new ValidationError("url", "Invalid field 'url': expected an http(s) URL of at most 2048 characters");
  await assertWebhookUrl("url", url, publicTargetsOnly(webhooks, auth.mode));
  const events = parseEventFilter("events", input.events);
  if (input.description !== undefined && input.description !== null && (typeof input.description !== "string" || input.description.length > 500)) {
    throw new ValidationError("description", "Invalid field 'description': a string of at most 500 characters");
  }
  const endpoint = await insertWebhookEndpointWithin(
    db,
    webhooks.box,
    { merchantId: auth.merchantId, mode: auth.mode, url, events, description: (input.description as string | null | undefined) ?? null },
    MAX_WEBHOOK_ENDPOINTS,
  );
  if (!endpoint) {
    throw new ConflictError(`At most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints per account and mode: remove one first (DELETE /webhook-endpoints/{id}).`, "webhook_endpoint_limit");
  }
  return endpoint;
}

import { ValidationError } from "../../domain/errors.ts";
import { parseAgentId } from "./agentPolicies.ts";

/** Body fields every payment creation takes alike (`/payments/create`, `/deposits/create`, cross-chain). */

/** Metadata is a flat map of strings, as Stripe's: at most 50 keys of 100 chars, values of 1000. */
export function parseMetadata(value: unknown): Record<string, string> {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ValidationError("metadata", "Invalid field 'metadata': expected an object of string values");
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > 50) throw new ValidationError("metadata", "Invalid field 'metadata': at most 50 keys");
  for (const [key, v] of entries) {
    if (key.length === 0 || key.length > 100) throw new ValidationError(`metadata.${key}`, `Invalid field 'metadata': keys are 1 to 100 characters`);
    if (typeof v !== "string" || v.length > 1000) {
      throw new ValidationError(`metadata.${key}`, `Invalid field 'metadata.${key}': expected a string of at most 1000 characters`);
    }
  }
  return Object.fromEntries(entries) as Record<string, string>;
}

/**
 * An http(s) URL a merchant gives (`callbackUrl`, `successUrl`, `cancelUrl`); anything
 * else could never be delivered to or opened. The 400 names the field.
 */
export function parseHttpUrl(field: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ValidationError(field, `Invalid field '${field}': not a URL`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ValidationError(field, `Invalid field '${field}': must be an http or https URL`);
  }
  return url;
}

/** The agent id from the `X-Agent-Id` header or the body's `agentId`; both given must agree. */
export function resolveAgentId(header: string | undefined, body: unknown): string | null {
  const fromHeader = header === undefined || header.trim() === "" ? null : parseAgentId("X-Agent-Id", header);
  const fromBody = body === undefined || body === null ? null : parseAgentId("agentId", body);
  if (fromHeader && fromBody && fromHeader !== fromBody) {
    throw new ValidationError("agentId", `Invalid field 'agentId': "${fromBody}" differs from the X-Agent-Id header "${fromHeader}"`);
  }
  return fromHeader ?? fromBody;
}

/** The merchant's own fields of a new payment, as given (validated before): null when absent. */
export const merchantFields = (body: { orderId?: string; customerEmail?: string; callbackUrl?: string; successUrl?: string; cancelUrl?: string }) => ({
  orderId: body.orderId ?? null,
  customerEmail: body.customerEmail ?? null,
  callbackUrl: body.callbackUrl ?? null,
  successUrl: body.successUrl ?? null,
  cancelUrl: body.cancelUrl ?? null,
});

import { createHash } from "node:crypto";

/** JSON with object keys sorted at every level, so equal bodies hash equally. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

export const fingerprint = (body: unknown) => createHash("sha256").update(canonicalJson(body)).digest("hex");

/**
 * Which key identifies a repeat (spec, "Payment creation and idempotency"): the
 * `Idempotency-Key` header, else the body's `orderId`, else a fingerprint of the body.
 * Prefixed by source so an order id can never collide with a header value.
 */
export function idempotencyKeyOf(header: string | undefined | null, body: unknown): { key: string; requestHash: string } {
  const requestHash = fingerprint(body);
  const headerKey = header?.trim();
  if (headerKey) return { key: `header:${headerKey}`, requestHash };
  const orderId = (body as { orderId?: unknown } | null)?.orderId;
  if (typeof orderId === "string" && orderId.trim() !== "") return { key: `order:${orderId.trim()}`, requestHash };
  if (typeof orderId === "number") return { key: `order:${orderId}`, requestHash };
  return { key: `body:${requestHash}`, requestHash };
}

/**
 * How long a key marks a retry, in seconds: a body fingerprint only within `bodyWindowSeconds`
 * (two customers with identical carts are two payments, not one); the header and `orderId`
 * for as long as keys are kept (null).
 */
export const replayWindowOf = (key: string, bodyWindowSeconds: number): number | null => (key.startsWith("body:") ? bodyWindowSeconds : null);

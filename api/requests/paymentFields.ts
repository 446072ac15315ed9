import { ValidationError } from "../../domain/errors.ts";
import { parseAgentId } from "./agentId.ts";

/** Parsers of the body fields every payment creation takes alike (`/payments/create`, `/deposits/create`, cross-chain). */

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

/** What a JSON `metadata` object may hold: its size written as JSON, and how deep it nests. */
export const JSON_METADATA_LIMITS = { maxBytes: 16 * 1024, maxDepth: 5, maxKeys: 50, maxKeyLength: 100 } as const;

/**
 * Metadata as the client SDK sends it (`/payments/create`, `/deposits/create`): any JSON
 * object — objects, arrays, numbers, booleans and null inside — returned as given. Bounded:
 * at most 50 keys at the top (of 1 to 100 characters), nesting at most 5 deep, 16 KiB as
 * JSON. Text no column can hold is refused before (`textGuard`).
 */
export function parseJsonMetadata(value: unknown): Record<string, unknown> {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ValidationError("metadata", "Invalid field 'metadata': expected a JSON object");
  }
  const keys = Object.keys(value);
  const { maxBytes, maxDepth, maxKeys, maxKeyLength } = JSON_METADATA_LIMITS;
  if (keys.length > maxKeys) throw new ValidationError("metadata", `Invalid field 'metadata': at most ${maxKeys} keys`);
  for (const key of keys) {
    if (key.length === 0 || key.length > maxKeyLength) throw new ValidationError(`metadata.${key}`, `Invalid field 'metadata': keys are 1 to ${maxKeyLength} characters`);
  }
  if (depthOf(value) > maxDepth) throw new ValidationError("metadata", `Invalid field 'metadata': nests deeper than ${maxDepth} levels`);
  if (Buffer.byteLength(JSON.stringify(value)) > maxBytes) throw new ValidationError("metadata", `Invalid field 'metadata': larger than ${maxBytes / 1024} KiB as JSON`);
  return value as Record<string, unknown>;
}

/** How deep objects and arrays nest in `value` (an object of scalars is 1); iterative, so a deep body cannot overflow the stack. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== "object") continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/** Who is accountable for an agent (the MCP server's `agentOwner`): as its agent id is written there, at most 100 characters. */
const AGENT_OWNER = /^[A-Za-z0-9_-]{1,100}$/;

/** The body's `agentOwner`, recorded beside the agent id; it names the owner of an agent, so it needs one. */
export function parseAgentOwner(value: unknown, agentId: string | null): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || !AGENT_OWNER.test(value)) {
    throw new ValidationError("agentOwner", "Invalid field 'agentOwner': 1 to 100 letters, digits, '_' or '-'");
  }
  if (agentId === null) throw new ValidationError("agentOwner", "Invalid field 'agentOwner': names the owner of an agent; send agentId (or X-Agent-Id) with it");
  return value;
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

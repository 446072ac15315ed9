import type { Config, Mode } from "../../config/index.ts";
import { networksForMode } from "../../config/index.ts";
import type { AgentPolicyRow, AgentPolicyValues } from "../../db/agentPolicies.ts";
import { decimalFromNumber, normalizeDecimal } from "../../domain/decimal.ts";
import { parseIsoDate } from "../../domain/dateRange.ts";
import { ValidationError } from "../../domain/errors.ts";

const FIELDS = ["maxPerPayment", "dailyLimit", "allowedNetworks", "allowedTokens", "expiresAt", "active"] as const;

/** A USD limit: a decimal string or plain JSON number ≥ 0 with at most 18 decimals; null or absent = no limit. */
function parseUsdLimit(field: string, value: unknown): string | null {
  if (value === undefined || value === null) return null;
  const written = typeof value === "number" ? decimalFromNumber(value) : typeof value === "string" ? value : null;
  const text = written === null ? null : normalizeDecimal(written, 18);
  if (text === null) throw new ValidationError(field, `Invalid field '${field}': expected a USD amount such as "250.00" (at most 18 decimals), or null for no limit`);
  if (text.replace(".", "").length > 60) throw new ValidationError(field, `Invalid field '${field}': too large`);
  return text;
}

function parseList(field: string, value: unknown, known: readonly string[], normalize: (s: string) => string): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) throw new ValidationError(field, `Invalid field '${field}': expected an array (or null for any)`);
  const result: string[] = [];
  for (const [i, item] of value.entries()) {
    const name = typeof item === "string" ? normalize(item) : "";
    if (!known.includes(name)) {
      throw new ValidationError(`${field}.${i}`, `Invalid field '${field}.${i}': ${JSON.stringify(item)} is not one of ${known.join(", ") || "none"}`);
    }
    if (!result.includes(name)) result.push(name);
  }
  return result;
}

/**
 * A PUT body to the whole policy (PUT replaces: an omitted field takes its default: no
 * limit, any network, any token, no expiry, active). Unknown fields are rejected so a
 * misspelt limit is never silently dropped.
 */
export function parseAgentPolicyInput(config: Config, mode: Mode, body: unknown): AgentPolicyValues {
  if (body === undefined || body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new ValidationError("body", "Invalid request body: expected a JSON object");
  }
  const input = body as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!(FIELDS as readonly string[]).includes(key)) throw new ValidationError(key, `Invalid field '${key}': unknown field (allowed: ${FIELDS.join(", ")})`);
  }
  const networks = networksForMode(config, mode);
  const tokens = [...new Set(networks.flatMap((n) => n.tokens.map((t) => t.symbol)))];

  let expiresAt: Date | null = null;
  if (input.expiresAt !== undefined && input.expiresAt !== null) {
    const parsed = typeof input.expiresAt === "string" ? parseIsoDate(input.expiresAt) : null;
    if (!parsed) throw new ValidationError("expiresAt", "Invalid field 'expiresAt': expected an ISO 8601 date-time such as 2030-01-31T23:59:59Z, or null");
    expiresAt = parsed.at;
  }
  if (input.active !== undefined && typeof input.active !== "boolean") {
    throw new ValidationError("active", "Invalid field 'active': expected true or false");
  }
  return {
    maxPerPayment: parseUsdLimit("maxPerPayment", input.maxPerPayment),
    dailyLimit: parseUsdLimit("dailyLimit", input.dailyLimit),
    allowedNetworks: parseList("allowedNetworks", input.allowedNetworks, networks.map((n) => n.shortName), (s) => s.trim()),
    allowedTokens: parseList("allowedTokens", input.allowedTokens, tokens, (s) => s.trim().toUpperCase()),
    expiresAt,
    active: (input.active as boolean | undefined) ?? true,
  };
}

/** The policy as the API shows it; limits are USD decimal strings. */
export function presentAgentPolicy(p: AgentPolicyRow) {
  return {
    agentId: p.agentId,
    currency: "USD",
    maxPerPayment: p.maxPerPayment,
    dailyLimit: p.dailyLimit,
    allowedNetworks: p.allowedNetworks,
    allowedTokens: p.allowedTokens,
    expiresAt: p.expiresAt?.toISOString() ?? null,
    active: p.active,
    isTest: p.mode === "test",
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

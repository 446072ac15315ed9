import { parseIsoDate, type DateBound } from "../../domain/dateRange.ts";
import { ValidationError } from "../../domain/errors.ts";
import { paymentStatuses, type PaymentStatus } from "../../domain/paymentStatus.ts";
import { uuidPattern } from "../../domain/uuid.ts";

export type Query = Record<string, unknown>;

/** The request's query as given: a repeated parameter becomes an array (Elysia's parsed query keeps only one). */
export function queryOf(request: Request): Query {
  const query: Record<string, string | string[]> = {};
  for (const [key, value] of new URL(request.url).searchParams) {
    const seen = query[key];
    query[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return query;
}

const invalid = (name: string, why: string) => new ValidationError(name, `Invalid query parameter '${name}': ${why}`);

/** One query value as text; absent or empty is undefined, a repeated parameter is a 400. */
export function queryValue(query: Query, name: string): string | undefined {
  const text = queryText(query, name)?.trim();
  return text === "" ? undefined : text;
}

/** One query value exactly as sent (an order id may hold spaces); absent is undefined, a repeated parameter is a 400. */
export function queryText(query: Query, name: string): string | undefined {
  const value = query[name];
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) throw invalid(name, "given more than once");
  return String(value);
}

/** An integer in [min, max]; digits only (no "1e2", no "20.0"). */
export function queryInteger(query: Query, name: string, range: { min: number; max: number; fallback: number }): number {
  const text = queryValue(query, name);
  if (text === undefined) return range.fallback;
  if (!/^\d{1,6}$/.test(text) || Number(text) < range.min || Number(text) > range.max) {
    throw invalid(name, `expected an integer from ${range.min} to ${range.max}`);
  }
  return Number(text);
}

export function queryDate(query: Query, name: string): DateBound | undefined {
  const text = queryValue(query, name);
  if (text === undefined) return undefined;
  const parsed = parseIsoDate(text);
  if (!parsed) throw invalid(name, `expected an ISO 8601 date (2024-05-31) or date-time (2024-05-31T12:00:00Z), got "${text.slice(0, 40)}"`);
  return parsed;
}

export function queryStatus(name: string, text: string): PaymentStatus {
  if (!(paymentStatuses as readonly string[]).includes(text)) throw invalid(name, `"${text.slice(0, 40)}" is not one of ${paymentStatuses.join(", ")}`);
  return text as PaymentStatus;
}

export function queryUuid(query: Query, name: string): string | undefined {
  const text = queryValue(query, name);
  if (text === undefined) return undefined;
  if (!uuidPattern.test(text)) throw invalid(name, "expected a payment id (uuid)");
  return text.toLowerCase();
}

export { invalid as invalidQuery };

import type { Config } from "../../config/index.ts";
import type { DashboardPaymentFilters } from "../../db/dashboardPayments.ts";
import { parseIsoDate, rangeEndExclusive, rangeStart } from "../../domain/dateRange.ts";
import { ValidationError } from "../../domain/errors.ts";
import { paymentStatuses, type PaymentStatus } from "../../domain/paymentStatus.ts";
import { uuidPattern } from "../../domain/uuid.ts";

/** The list's query as the page echoes it back into its form and links (strings, "" when unset). */
export type PaymentQuery = { status: string; network: string; token: string; agent: string; from: string; to: string; q: string };

const text = (query: Record<string, unknown>, name: string, max: number): string => {
  const value = query[name];
  if (value === undefined || value === "") return "";
  if (typeof value !== "string" || value.length > max) throw new ValidationError(name, `${name}: at most ${max} characters`);
  return value.trim();
};

/** Reads and checks the list's query parameters; a ValidationError names the one that is wrong. */
export function parsePaymentQuery(config: Config, query: Record<string, unknown>): { echo: PaymentQuery; filters: DashboardPaymentFilters; after: string | null } {
  const echo: PaymentQuery = {
    status: text(query, "status", 20),
    network: text(query, "network", 64),
    token: text(query, "token", 20),
    agent: text(query, "agent", 200),
    from: text(query, "from", 30),
    to: text(query, "to", 30),
    q: text(query, "q", 200),
  };
  const filters: DashboardPaymentFilters = {};
  if (echo.status) {
    if (!(paymentStatuses as readonly string[]).includes(echo.status)) throw new ValidationError("status", `status: one of ${paymentStatuses.join(", ")}`);
    filters.status = echo.status as PaymentStatus;
  }
  if (echo.network) {
    const network = config.networks.find((n) => n.shortName === echo.network);
    if (!network) throw new ValidationError("network", `network: one of ${config.networks.map((n) => n.shortName).join(", ")}`);
    filters.networkId = network.id;
  }
  if (echo.token) {
    if (!/^[A-Za-z0-9.]{1,20}$/.test(echo.token)) throw new ValidationError("token", "token: a token symbol such as USDC");
    filters.tokenSymbol = echo.token.toUpperCase();
  }
  if (echo.agent) filters.agentId = echo.agent;
  if (echo.from) {
    const bound = parseIsoDate(echo.from);
    if (!bound) throw new ValidationError("from", "from: a date such as 2026-01-31");
    filters.from = rangeStart(bound);
  }
  if (echo.to) {
    const bound = parseIsoDate(echo.to);
    if (!bound) throw new ValidationError("to", "to: a date such as 2026-01-31 (inclusive)");
    filters.toExclusive = rangeEndExclusive(bound);
  }
  if (echo.q) {
    filters.search = echo.q;
    filters.searchChainIds = config.networks.map((n) => n.chainId);
  }
  const after = text(query, "after", 36);
  if (after && !uuidPattern.test(after)) throw new ValidationError("after", "after: a payment id");
  return { echo, filters, after: after || null };
}

/** The list's URL with these filters (and a cursor), for links that keep them. */
export function paymentListHref(path: string, echo: PaymentQuery, after?: string): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(echo)) if (value) params.set(name, value);
  if (after) params.set("after", after);
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

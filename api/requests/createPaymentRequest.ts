import type { Config, Network, Token } from "../../config/index.ts";
import { parseAmount } from "../../domain/amounts.ts";
import type { CreatableMethod } from "../../rails/index.ts";
import type { AuthContext } from "../plugins/auth.ts";
import { parseExpiresIn } from "./expiresIn.ts";
import { parseFiatAmount, type FiatAmount } from "./fiatAmount.ts";
import { parseAgentOwner, parseHttpUrl, parseJsonMetadata, resolveAgentId } from "./paymentFields.ts";
import { resolvePaymentTarget } from "./resolvePaymentTarget.ts";
import { merchantFieldsOf, type MerchantFields } from "./merchantFields.ts";
import { parseReturnUrls } from "./returnUrls.ts";

/** The body of `/payments/create` and `/deposits/create` as Elysia's schema lets it through (`api/schemas.ts`). */
export type CreatePaymentBody = {
  amount: string | number;
  currency: string;
  network: string;
  token?: string;
  orderId?: string;
  customerEmail?: string;
  callbackUrl?: string;
  successUrl?: string;
  cancelUrl?: string;
  metadata?: unknown;
  expiresIn?: number;
  /** The agent creating the payment (same as the `X-Agent-Id` header). */
  agentId?: unknown;
  /** Who is accountable for that agent (the MCP server sends it), recorded beside its id. */
  agentOwner?: unknown;
};

/** A payment creation, parsed: every field checked and in the type the service uses. */
export type CreatePaymentRequest = MerchantFields & {
  network: Network;
  method: CreatableMethod;
  token: Token;
  /** What the customer owes: smallest units of `token`, or a fiat price converted at creation (`priceInFiat`). */
  price: { units: bigint; fiat: null } | { units: null; fiat: FiatAmount };
  /** The body's `currency`, upper-cased (the token's symbol, or the fiat code). */
  currency: string;
  agentId: string | null;
  agentOwner: string | null;
  metadata: Record<string, unknown>;
  /** Seconds until expiry, within what this caller may ask. */
  expiresIn: number;
};

/** What a creation's body is read against: the configured networks of the key's mode, who asks, and how. */
export type CreatePaymentScope = {
  config: Config;
  auth: Pick<AuthContext, "mode" | "scheme">;
  kind: "payment" | "deposit";
  /** The `X-Agent-Id` header (agreeing with the body's `agentId` when both are given). */
  agentHeader: string | undefined;
  /** Forced expiry (deposit addresses: fifteen minutes, not settable). */
  fixedExpiresIn?: number;
};

/**
 * Turns a creation body into a `CreatePaymentRequest`, or throws the 400 (503 for a network
 * that cannot take payments yet) naming the first field that is wrong. Fields are read in
 * the order the service always checked them: network and token, amount, agent, metadata,
 * callback URL, expiry, return URLs, and last a fiat amount.
 */
export function parseCreatePaymentRequest(body: CreatePaymentBody, scope: CreatePaymentScope): CreatePaymentRequest {
  const { config, auth } = scope;
  const { network, method, token, fiatCurrency } = resolvePaymentTarget(config, auth.mode, scope.kind, body);
  const units = fiatCurrency ? null : parseAmount("amount", body.amount, token.decimals);
  const agentId = resolveAgentId(scope.agentHeader, body.agentId);
  const agentOwner = parseAgentOwner(body.agentOwner, agentId);
  const metadata = parseJsonMetadata(body.metadata);
  if (body.callbackUrl !== undefined) parseHttpUrl("callbackUrl", body.callbackUrl);
  const expiresIn = parseExpiresIn(config, auth, scope.fixedExpiresIn ?? body.expiresIn ?? config.payments.defaultExpiresIn);
  const returnUrls = parseReturnUrls(body);
  const price = fiatCurrency ? { units: null, fiat: parseFiatAmount(body.amount, fiatCurrency) } : { units: units!, fiat: null };
  return {
    network,
    method,
    token,
    price,
    currency: body.currency.trim().toUpperCase(),
    agentId,
    agentOwner,
    metadata,
    ...merchantFieldsOf(body, returnUrls),
    expiresIn,
  };
}

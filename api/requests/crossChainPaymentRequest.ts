import type { Config } from "../../config/index.ts";
import { parseWrittenAmount, type WrittenAmount } from "../../domain/amounts.ts";
import type { AuthContext } from "../plugins/auth.ts";
import { parseCrossChainRoute, type CrossChainRouteRequest } from "./crossChainRoute.ts";
import { parseExpiresIn } from "./expiresIn.ts";
import { parseHttpUrl, parseMetadata, resolveAgentId } from "./paymentFields.ts";
import { merchantFieldsOf, type MerchantFields } from "./merchantFields.ts";
import { parseReturnUrls } from "./returnUrls.ts";

/** The spec's default lifetime of a cross-chain payment, seconds. */
export const CROSS_CHAIN_EXPIRES_IN = 1800;

/** The body of `/payments/cross-chain/create` as Elysia's schema lets it through (`api/routes/crossChain.ts`). */
export type CrossChainBody = {
  amount: string | number;
  originChainId: number;
  originCurrency: string;
  customerEmail?: string;
  callbackUrl?: string;
  /** Where the hosted checkout page sends the customer once paid, or back without paying. */
  successUrl?: string;
  cancelUrl?: string;
  orderId?: string;
  metadata?: unknown;
  expiresIn?: number;
  /** The destination network (a short name) and token; chosen for the merchant when absent. */
  network?: string;
  currency?: string;
  /** The agent creating the payment (same as the `X-Agent-Id` header). */
  agentId?: unknown;
};

/** A cross-chain creation, parsed: every field checked and in the type the service uses. */
export type CrossChainPaymentRequest = MerchantFields & {
  route: CrossChainRouteRequest;
  /** What the merchant receives, as written: in units of the destination token once the route is resolved (`unitsOf`). */
  amount: WrittenAmount;
  agentId: string | null;
  /** A flat map of strings (cross-chain payments keep Stripe's metadata). */
  metadata: Record<string, string>;
  /** Seconds until expiry, within what this caller may ask; honoured to the second. */
  expiresIn: number;
};

export type CrossChainScope = {
  config: Config;
  auth: Pick<AuthContext, "mode" | "scheme">;
  /** The `X-Agent-Id` header (agreeing with the body's `agentId` when both are given). */
  agentHeader: string | undefined;
};

/**
 * Turns a cross-chain creation body into a `CrossChainPaymentRequest`, or throws the 4xx
 * naming the first field that is wrong: agent, metadata, callback URL, expiry, return URLs,
 * the route's origin and named destination, then the amount's form.
 */
export function parseCrossChainPaymentRequest(body: CrossChainBody, scope: CrossChainScope): CrossChainPaymentRequest {
  const { config, auth } = scope;
  const agentId = resolveAgentId(scope.agentHeader, body.agentId);
  const metadata = parseMetadata(body.metadata);
  if (body.callbackUrl !== undefined) parseHttpUrl("callbackUrl", body.callbackUrl);
  const expiresIn = parseExpiresIn(config, auth, body.expiresIn ?? CROSS_CHAIN_EXPIRES_IN);
  const returnUrls = parseReturnUrls(body);
  const route = parseCrossChainRoute(config, auth.mode, body);
  const amount = parseWrittenAmount("amount", body.amount);
  return {
    route,
    amount,
    agentId,
    metadata,
    ...merchantFieldsOf(body, returnUrls),
    expiresIn,
  };
}

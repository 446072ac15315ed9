import { getAddress, zeroAddress, type Address } from "viem";
import { bridgeAdapterFor, type Network } from "../../config/index.ts";
import { NoDestinationError, OriginRefundNotSupportedError } from "../../domain/errors.ts";
import type { RailContext } from "../types.ts";
import type { CrossChainQuote, CrossChainQuoteRequest } from "../ports/crossChain.ts";
import { bridgeAdapter } from "./adapters.ts";

export type { CrossChainQuote, CrossChainQuoteRequest };

/**
 * Where the `relay` bridge refunds on `origin`: BRIDGE_REFUND_ADDRESS_<chainId>, else
 * BRIDGE_REFUND_ADDRESS, else the operator's address (an account the service's operator
 * controls and can pay a customer back from). Null when the chain is set to `none` or no
 * address is known: a payment from there could never be refunded, so it is not taken.
 */
export function relayRefundAddress(ctx: RailContext, origin: Network): string | null {
  const configured = ctx.config.bridge.refundAddresses[origin.chainId];
  if (configured !== undefined) return configured;
  return ctx.config.bridge.defaultRefundAddress ?? ctx.config.operatorAddress ?? null;
}

/**
 * A deposit address for a cross-chain payment from the route's bridge (chosen per route by
 * the configuration). The local bridge returns deposits to their senders; Relay to the
 * refund address of the origin chain, and there must be one (ORIGIN_REFUND_NOT_SUPPORTED).
 * Errors are the adapter's: NO_ROUTE, ORIGIN_*, NO_DESTINATION, or 502 when it failed.
 */
export async function quoteCrossChain(ctx: RailContext, request: CrossChainQuoteRequest): Promise<CrossChainQuote> {
  const { origin, destination } = request;
  const adapter = bridgeAdapterFor(ctx.config.bridge, origin, destination);
  if (!adapter) throw new NoDestinationError(`No bridge is configured from ${origin.name} to ${destination.name}.`);
  const refundTo = adapter === "local" ? null : relayRefundAddress(ctx, origin);
  if (adapter !== "local" && !refundTo) {
    throw new OriginRefundNotSupportedError(`No refund address is configured on ${origin.name}: a payment from there could not be refunded.`);
  }
  const quote = await bridgeAdapter(ctx, adapter, origin.isTestnet).quote({
    originChainId: Number(origin.chainId),
    originToken: getAddress(request.originToken.address),
    destinationChainId: Number(destination.chainId),
    destinationToken: getAddress(request.destinationToken.address),
    recipient: getAddress(request.recipient),
    amount: request.amount,
    // The local bridge refunds each deposit to its sender; the zero address says so.
    refundTo: (refundTo ?? zeroAddress) as Address,
    expiresAt: request.expiresAt,
    reference: request.reference,
  });
  return { adapter, quote, refundTo };
}

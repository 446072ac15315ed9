import { zeroAddress } from "viem";
import { ValidationError } from "../../../domain/errors.ts";
import type { BridgeQuote, BridgeQuoteRequest } from "../adapter.ts";
import { parseRelayQuote } from "./parseRelayQuote.ts";
import { relayQuoteError } from "./relayQuoteError.ts";
import { requestRelay } from "./requestRelay.ts";
import type { RelayAdapterOptions } from "./types.ts";

/**
 * A strict deposit address for one payment: `POST /quote/v2` (docs.relay.link, "Deposit
 * Addresses" and the Get Quote schema). Strict binds the address to this order: an
 * underpayment is refunded to `refundTo`, an exact payment fills, an overpayment fills
 * the quoted amount and refunds the excess separately; EXACT_OUTPUT is allowed only with
 * strict. Each call makes a new request id and address (Relay has no idempotency key), so
 * the caller stores the quote before handing the address out.
 */
export async function quoteRelay(options: RelayAdapterOptions, request: BridgeQuoteRequest): Promise<BridgeQuote> {
  if (request.amount <= 0n) throw new ValidationError("amount", "The amount to bridge must be greater than zero.");
  const now = (options.now ?? (() => new Date()))();
  const ttlSeconds = Math.ceil((request.expiresAt.getTime() - now.getTime()) / 1000);
  if (ttlSeconds < 1) throw new ValidationError("expiresAt", "The payment expires before the bridge could be paid.");

  const answer = await requestRelay(options, {
    method: "POST",
    path: "/quote/v2",
    body: {
      // For deposit addresses `user` "can be any valid address, including the zero address":
      // the depositor is unknown (anyone can send to the address), so we say so.
      user: zeroAddress,
      recipient: request.recipient,
      originChainId: request.originChainId,
      destinationChainId: request.destinationChainId,
      originCurrency: request.originToken,
      destinationCurrency: request.destinationToken,
      amount: request.amount.toString(),
      tradeType: "EXACT_OUTPUT",
      useDepositAddress: true,
      strict: true,
      refundTo: request.refundTo,
      // Not filled by the payment's expiry: refunded to `refundTo` instead of paying the merchant late.
      ttl: ttlSeconds,
      // Echoed in webhooks and stored on the request: our payment id, for correlation.
      referrer: request.reference,
    },
  });
  if (answer.status < 200 || answer.status >= 300) throw relayQuoteError(answer, request);
  return parseRelayQuote(answer.body, request);
}

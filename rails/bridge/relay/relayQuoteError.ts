import {
  type AppError,
  BridgeRouteError,
  BridgeUnavailableError,
  NoDestinationError,
  OriginNotSupportedError,
  OriginRefundNotSupportedError,
} from "../../../domain/errors.ts";
import type { BridgeQuoteRequest } from "../adapter.ts";
import { isRecord, stringField } from "./readJson.ts";
import type { RelayAnswer } from "./requestRelay.ts";

/**
 * Quote error codes meaning "no route for this origin, destination and amount"
 * (docs.relay.link, "Handling Quote Errors"). UNSUPPORTED_CURRENCY is there too: the
 * token pair cannot be served, which is the same answer for a merchant.
 */
const NO_ROUTE_CODES = new Set([
  "AMOUNT_TOO_LOW",
  "NO_QUOTES",
  "NO_SWAP_ROUTES_FOUND",
  "NO_INTERNAL_SWAP_ROUTES_FOUND",
  "INSUFFICIENT_LIQUIDITY",
  "UNSUPPORTED_ROUTE",
  "ROUTE_TEMPORARILY_RESTRICTED",
  "SWAP_IMPACT_TOO_HIGH",
  "UNSUPPORTED_CURRENCY",
]);

/** "The origin or destination chain is currently disabled or unsupported." */
const CHAIN_CODES = new Set(["UNSUPPORTED_CHAIN", "CHAIN_DISABLED"]);

/**
 * The error for a non-2xx answer to `POST /quote/v2`, whose body is `{message, errorCode}`.
 *
 * The docs do not say which chain an UNSUPPORTED_CHAIN / CHAIN_DISABLED is about, so the
 * message decides: one naming only the destination (the word or its chain id) is
 * NO_DESTINATION, anything else is the origin (the customer picks the origin; the
 * destination is the merchant's chain, which the service already offers). Likewise
 * nothing documents a code for an unusable `refundTo`: an INVALID_ADDRESS whose message
 * mentions the refund address is ORIGIN_REFUND_NOT_SUPPORTED. Everything else (5xx,
 * 401, transient codes such as SERVICE_UNAVAILABLE, bad input we sent) is the bridge
 * failing: BridgeUnavailableError.
 */
export function relayQuoteError(answer: RelayAnswer, request: BridgeQuoteRequest): AppError {
  const body = isRecord(answer.body) ? answer.body : {};
  const errorCode = stringField(body.errorCode);
  const message = stringField(body.message);
  const detail = `POST /quote/v2 answered ${answer.status}${errorCode ? ` ${errorCode}` : ""}${message ? `: ${message}` : ""}`;

  if (answer.status >= 400 && answer.status < 500 && errorCode) {
    if (NO_ROUTE_CODES.has(errorCode)) return new BridgeRouteError(message ?? errorCode, errorCode);
    if (CHAIN_CODES.has(errorCode)) {
      return namesOnlyDestination(message ?? "", request)
        ? new NoDestinationError(`The bridge cannot deliver to chain ${request.destinationChainId}: ${message ?? errorCode}`)
        : new OriginNotSupportedError(`The bridge does not accept payments from chain ${request.originChainId}: ${message ?? errorCode}`);
    }
    if (errorCode === "INVALID_ADDRESS" && /refund/i.test(message ?? "")) {
      return new OriginRefundNotSupportedError(`The bridge cannot refund on chain ${request.originChainId}: ${message}`);
    }
  }
  return new BridgeUnavailableError("relay", detail, { bridgeCode: errorCode, httpStatus: answer.status });
}

function namesOnlyDestination(message: string, request: BridgeQuoteRequest): boolean {
  const names = (word: string, chainId: number) => new RegExp(`\\b${word}\\b`, "i").test(message) || new RegExp(`\\b${chainId}\\b`).test(message);
  return names("destination", request.destinationChainId) && !names("origin", request.originChainId);
}

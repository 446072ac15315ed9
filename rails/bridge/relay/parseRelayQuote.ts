import { getAddress, isAddress } from "viem";
import { BridgeUnavailableError } from "../../../domain/errors.ts";
import type { BridgeQuote, BridgeQuoteRequest } from "../adapter.ts";
import { isRecord, stringField, unitsField } from "./readJson.ts";

/**
 * Reads a `POST /quote/v2` answer (docs.relay.link, "Deposit Addresses" example and the
 * quote schema): the deposit address and request id from the deposit step
 * (`steps[0].depositAddress`, `steps[0].requestId` in every documented answer; the first
 * step carrying a `depositAddress` should another ever come first), what the customer sends from
 * `details.currencyIn.amount`, the fees from `fees.relayer` (+ `fees.app`, same currency
 * by the docs). Anything missing, or a quote for another token or for less than the
 * merchant must receive, is the bridge failing: we never hand out a deposit address we
 * cannot account for.
 *
 * The quote carries no expiry of its own, so the quote lives until the payment's
 * `expiresAt` (sent to Relay as `ttl`).
 */
export function parseRelayQuote(body: unknown, request: BridgeQuoteRequest): BridgeQuote {
  const fail = (reason: string) => new BridgeUnavailableError("relay", `POST /quote/v2: ${reason}`);
  if (!isRecord(body)) throw fail("the answer is not an object");

  const steps = Array.isArray(body.steps) ? body.steps.filter(isRecord) : [];
  const step = steps.find((s) => s.depositAddress !== undefined) ?? steps[0];
  if (!step) throw fail("no steps in the answer");
  const depositAddress = stringField(step.depositAddress);
  if (!depositAddress || !isAddress(depositAddress, { strict: false })) throw fail("no valid steps[0].depositAddress");
  const requestId = stringField(step.requestId);
  if (!requestId) throw fail("no steps[0].requestId");

  const details = isRecord(body.details) ? body.details : {};
  const currencyIn = isRecord(details.currencyIn) ? details.currencyIn : {};
  const amountToSend = unitsField(currencyIn.amount);
  if (amountToSend === undefined || amountToSend <= 0n) throw fail("no details.currencyIn.amount");
  const tokenIn = isRecord(currencyIn.currency) ? currencyIn.currency : {};
  if (
    (typeof tokenIn.chainId === "number" && tokenIn.chainId !== request.originChainId) ||
    (typeof tokenIn.address === "string" && tokenIn.address.toLowerCase() !== request.originToken.toLowerCase())
  ) {
    throw fail(`the quote is for ${String(tokenIn.address)} on chain ${String(tokenIn.chainId)}, not the origin token`);
  }

  const currencyOut = isRecord(details.currencyOut) ? details.currencyOut : {};
  const amountOut = unitsField(currencyOut.amount);
  if (amountOut !== undefined && amountOut < request.amount) throw fail(`the quote delivers ${amountOut}, less than the ${request.amount} asked for`);

  return {
    requestId,
    depositAddress: getAddress(depositAddress),
    amountToSend,
    expiresAt: request.expiresAt,
    fees: relayFees(body.fees),
    raw: body,
  };
}

/** Relay's fee to the customer: `relayer` (= relayerGas + relayerService) plus any `app` fee. Origin `gas` is the sender's own transaction, not taken from the amount. */
function relayFees(fees: unknown): BridgeQuote["fees"] {
  if (!isRecord(fees) || !isRecord(fees.relayer)) return null;
  const relayerAmount = unitsField(fees.relayer.amount);
  if (relayerAmount === undefined) return null;
  const currency = isRecord(fees.relayer.currency) ? fees.relayer.currency : {};
  let total = relayerAmount;
  if (isRecord(fees.app)) {
    const appAmount = unitsField(fees.app.amount);
    const appCurrency = isRecord(fees.app.currency) ? fees.app.currency : {};
    if (appAmount !== undefined && sameToken(currency, appCurrency)) total += appAmount;
  }
  return {
    total,
    currency: stringField(currency.symbol) ?? stringField(currency.address) ?? "unknown",
    ...(typeof currency.chainId === "number" ? { chainId: currency.chainId } : {}),
    ...(typeof currency.address === "string" ? { address: currency.address } : {}),
    ...(typeof currency.decimals === "number" ? { decimals: currency.decimals } : {}),
  };
}

function sameToken(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return a.chainId === b.chainId && typeof a.address === "string" && typeof b.address === "string" && a.address.toLowerCase() === b.address.toLowerCase();
}

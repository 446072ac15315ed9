import { networksForMode, type Config, type Mode, type Network, type Token } from "../../config/index.ts";
import { ValidationError } from "../../domain/errors.ts";
import { crossChainPort } from "../../rails/index.ts";

/**
 * The route a cross-chain body asks for, as far as it can be read without the merchant's
 * wallets: the customer's chain and token, and the merchant's network and token when named.
 * `resolveCrossChainRoute` picks the destination from there.
 */
export type CrossChainRouteRequest = {
  origin: Network;
  originToken: Token;
  /** The destination the body names (null: the first a bridge reaches where the merchant has a wallet). */
  network: Network | null;
  /** The destination token the body names, upper-cased ("" or undefined: chosen from the origin's). */
  currency: string | undefined;
};

/**
 * The origin is the customer's chain and token (ORIGIN_NOT_SUPPORTED unless a bridge leaves
 * from it); a named destination must be a network of the key's mode.
 */
export function parseCrossChainRoute(
  config: Config,
  mode: Mode,
  body: { originChainId: number; originCurrency: string; network?: string; currency?: string },
): CrossChainRouteRequest {
  const origin = crossChainPort().originNetwork(config, mode, body.originChainId);
  const symbol = body.originCurrency.trim().toUpperCase();
  const originToken = origin.tokens.find((t) => t.symbol === symbol);
  if (!originToken) {
    throw new ValidationError("originCurrency", `Invalid field 'originCurrency': ${symbol} is not a token on ${origin.name} (one of: ${origin.tokens.map((t) => t.symbol).join(", ")})`);
  }
  let network: Network | null = null;
  if (body.network !== undefined) {
    network = networksForMode(config, mode).find((n) => n.shortName === body.network!.trim()) ?? null;
    if (!network) throw new ValidationError("network", `Invalid field 'network': unknown network "${body.network}" for ${mode} mode`);
  }
  return { origin, originToken, network, currency: body.currency?.trim().toUpperCase() };
}

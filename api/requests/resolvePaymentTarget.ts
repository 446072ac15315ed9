import type { Config, Mode, Network, Token } from "../../config/index.ts";
import { networksForMode } from "../../config/index.ts";
import { ServiceUnavailableError, ValidationError } from "../../domain/errors.ts";
import { methodFor, type CreatableMethod } from "../../rails/index.ts";

/**
 * The network and token a creation request names, for the key's mode. `currency` is a
 * token symbol (or, with `token` set, the same symbol), or a 3-letter fiat code with
 * `token` naming the stablecoin to pay in: then `fiatCurrency` is set and the amount is
 * converted at the current rate.
 */
export function resolvePaymentTarget(
  config: Config,
  mode: Mode,
  kind: "payment" | "deposit",
  body: { network: string; currency: string; token?: string },
): { network: Network; method: CreatableMethod; token: Token; fiatCurrency: string | null } {
  const candidates = networksForMode(config, mode).filter((n) => n.enabled);
  const network = candidates.find((n) => n.shortName === body.network.trim());
  if (!network) {
    const names = candidates.map((n) => n.shortName).join(", ") || "none configured";
    throw new ValidationError("network", `Invalid field 'network': unknown or disabled network "${body.network}" for ${mode} mode (one of: ${names})`);
  }
  const method = methodFor(network, kind);
  if (!method) throw new ValidationError("network", `Invalid field 'network': payments on ${network.name} are not available yet`);
  const symbol = (body.token ?? body.currency).trim().toUpperCase();
  const currency = body.currency.trim().toUpperCase();
  const stablecoins = new Set(config.networks.flatMap((n) => n.tokens.map((t) => t.symbol)));
  const accepted = network.tokens.map((t) => t.symbol).join(", ");
  const token = network.tokens.find((t) => t.symbol === symbol);
  if (!token) {
    if (!body.token && FIAT_CODE.test(currency) && !stablecoins.has(currency)) {
      throw new ValidationError("token", `Invalid field 'token': required when pricing in a fiat currency (${currency}); name the stablecoin to pay in (one of: ${accepted})`);
    }
    const field = body.token ? "token" : "currency";
    throw new ValidationError(field, `Invalid field '${field}': ${symbol} is not accepted on ${network.name} (one of: ${accepted})`);
  }
  let fiatCurrency: string | null = null;
  if (body.token && currency !== symbol) {
    if (stablecoins.has(currency) || !FIAT_CODE.test(currency)) {
      throw new ValidationError("currency", `Invalid field 'currency': ${body.currency} does not match token ${symbol} (and is not a 3-letter fiat currency code)`);
    }
    fiatCurrency = currency;
  }
  if (!method.supports(network)) {
    throw new ServiceUnavailableError(`${network.name} cannot accept payments yet: its settlement contracts are not configured`);
  }
  return { network, method, token, fiatCurrency };
}

/** ISO 4217-style currency codes: three letters. */
const FIAT_CODE = /^[A-Z]{3}$/;

import { networksForMode, type Config, type Mode, type Network, type Token } from "../../config/index.ts";
import { NoDestinationError, ValidationError } from "../../domain/errors.ts";
import { crossChainPort } from "../../rails/index.ts";
import type { CrossChainRouteRequest } from "../requests/crossChainRoute.ts";

export type CrossChainRoute = {
  origin: Network;
  originToken: Token;
  destination: Network;
  destinationToken: Token;
  /** The merchant's settlement wallet on the destination. */
  merchantWallet: string;
};

/**
 * Where a cross-chain payment goes, from the route the body asked for (`parseCrossChainRoute`).
 * The destination is the merchant's: the network named in `network` or, by default, the first
 * network of the catalogue that a bridge reaches from the origin and where the merchant has a
 * settlement wallet (NO_DESTINATION when there is none); its token is `currency`, else the
 * origin's symbol when the destination has it, else USDC, else its first token.
 */
export function resolveCrossChainRoute(config: Config, mode: Mode, wallets: ReadonlyMap<string, string>, asked: CrossChainRouteRequest): CrossChainRoute {
  const { origin, originToken } = asked;
  const reachable = crossChainPort().destinationsFrom(config, origin).filter((n) => networksForMode(config, mode).includes(n));
  let destination: Network | undefined;
  if (asked.network !== null) {
    const named = asked.network;
    if (!reachable.includes(named)) throw new NoDestinationError(`No bridge is configured from ${origin.name} to ${named.name}.`);
    if (!wallets.has(named.id)) throw new NoDestinationError(`No settlement wallet is configured on ${named.name}; set one before accepting payments there.`);
    destination = named;
  } else {
    destination = reachable.find((n) => wallets.has(n.id));
    if (!destination) {
      throw new NoDestinationError(
        reachable.length === 0
          ? `No bridge is configured from ${origin.name} to another network.`
          : `No settlement wallet is configured on any network a bridge reaches from ${origin.name} (${reachable.map((n) => n.shortName).join(", ")}).`,
      );
    }
  }

  const wanted = asked.currency;
  const destinationToken = wanted
    ? destination.tokens.find((t) => t.symbol === wanted)
    : (destination.tokens.find((t) => t.symbol === originToken.symbol) ?? destination.tokens.find((t) => t.symbol === "USDC") ?? destination.tokens[0]);
  if (!destinationToken) {
    throw new ValidationError("currency", `Invalid field 'currency': ${wanted} is not a token on ${destination.name} (one of: ${destination.tokens.map((t) => t.symbol).join(", ")})`);
  }
  return { origin, originToken, destination, destinationToken, merchantWallet: wallets.get(destination.id)! };
}

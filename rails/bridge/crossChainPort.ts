import type { CrossChainPort } from "../ports/crossChain.ts";
import { crossChainSources, destinationsFrom, originNetwork } from "./crossChainRoutes.ts";
import { observeBridge } from "./observeBridge.ts";
import { quoteCrossChain } from "./quoteCrossChain.ts";
import { verifyRelayWebhook } from "./relay/verifyRelayWebhook.ts";
import { routeMinimum } from "./routeMinimum.ts";

/** The bridge's cross-chain port: its routes, quotes, Relay's webhook and its reads, for the cross-chain endpoints and the `bridge` job. */
export const bridgeCrossChain: CrossChainPort = {
  sources: crossChainSources,
  destinationsFrom,
  originNetwork,
  routeMinimum,
  quote: quoteCrossChain,
  verifyRelayWebhook,
  observe: observeBridge,
};

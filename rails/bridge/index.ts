import type { KindRails } from "../registration.ts";
import { bridgeEvidence } from "./evidence.ts";
import { bridgeMethod } from "./method.ts";

export { bridgeAdapter } from "./adapters.ts";
export { crossChainSources, destinationsFrom, originNetwork } from "./crossChainRoutes.ts";
export { observeBridge, type BridgeObservation, type ObservedFill } from "./observeBridge.ts";
export { quoteCrossChain, relayRefundAddress, type CrossChainQuote, type CrossChainQuoteRequest } from "./quoteCrossChain.ts";
export { routeMinimum } from "./routeMinimum.ts";
export { bridgeEvidence, bridgeMethod };

/** Cross-chain payments: a payment method and its evidence; everything on the payment's chain is its network's. */
export const bridgeRails: KindRails = { method: bridgeMethod, evidence: bridgeEvidence };

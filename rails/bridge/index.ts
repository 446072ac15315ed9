import type { KindRails } from "../registration.ts";
import { bridgeCrossChain } from "./crossChainPort.ts";
import { bridgeEvidence } from "./evidence.ts";
import { bridgeMethod } from "./method.ts";

export { bridgeAdapter } from "./adapters.ts";
export { bridgeCrossChain, bridgeEvidence, bridgeMethod };

/** Cross-chain payments: a payment method, its evidence and the cross-chain port (routes, quotes, webhooks, reads); everything on the payment's chain is its network's. */
export const bridgeRails: KindRails = { method: bridgeMethod, evidence: bridgeEvidence, crossChain: bridgeCrossChain };

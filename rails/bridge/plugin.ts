import type { RailPlugin } from "../registration.ts";
import { bridgeRails } from "./index.ts";
import { relayerRole } from "./role.ts";

/** Cross-chain payments as the service registers them (`rails/plugins.ts`): a method chosen by the kind of payment, and the local bridge's relayer role; their settings and tables are still the service's own (see docs/decisions/network-plugins.md). */
export const bridgePlugin: RailPlugin = { name: "bridge", kinds: { cross_chain: bridgeRails }, role: relayerRole };

import type { RailPlugin } from "../registration.ts";

/** Cross-chain payments as the service registers them (`plugins/index.ts`); their settings and tables are still the service's own (see docs/decisions/network-plugins.md). */
export const bridgePlugin: RailPlugin = { name: "bridge" };

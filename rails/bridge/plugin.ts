import type { RailPlugin } from "../registration.ts";
import { relayerRole } from "./role.ts";

/** Cross-chain payments as the service registers them (`rails/plugins.ts`): the local bridge's relayer role, and its method and evidence, chosen by the kind of payment; their settings and tables are still the service's own (see docs/decisions/network-plugins.md). */
export const bridgePlugin: RailPlugin = {
  name: "bridge",
  role: relayerRole,
  ports: { kind: "cross_chain", rails: () => (require("./index.ts") as typeof import("./index.ts")).bridgeRails },
};

import type { RailPlugin } from "../registration.ts";

/** x402 payments as the service registers them (`rails/plugins.ts`): their method and evidence, chosen by the kind of payment; their settings and tables are still the service's own. */
export const x402Plugin: RailPlugin = {
  name: "x402",
  ports: { kind: "x402", rails: () => (require("./index.ts") as typeof import("./index.ts")).x402Rails },
};

import type { RailPlugin } from "../registration.ts";

/** x402 payments as the service registers them (`rails/plugins.ts`) (its method and evidence, chosen by the kind of payment, are in `registry.ts`); their settings and tables are still the service's own. */
export const x402Plugin: RailPlugin = { name: "x402" };

import type { RailPlugin } from "../registration.ts";
import { x402Rails } from "./index.ts";

/** x402 payments as the service registers them (`rails/plugins.ts`): a method chosen by the kind of payment; their settings and tables are still the service's own. */
export const x402Plugin: RailPlugin = { name: "x402", kinds: { x402: x402Rails } };

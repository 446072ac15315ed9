import { bridgePlugin } from "./bridge/plugin.ts";
import { evmPlugin } from "./evm/plugin.ts";
import type { RailPlugin } from "./registration.ts";
import { solanaPlugin } from "./solana/plugin.ts";
import { x402Plugin } from "./x402/plugin.ts";

/**
 * Every rail the service runs with, registered once. Its ports (`registry.ts`), its network
 * type's spec and configuration (`plugins/config.ts`), its tables and its process role
 * (`plugins/roles.ts`, `scripts/role.ts`) all come from this list: adding a network type is
 * its folder plus one entry here. It sits in rails/ because rails/ code looks ports up by it
 * and cannot import the top-level composition (`plugins/`), which imports rails/.
 */
export const plugins: readonly RailPlugin[] = [evmPlugin, solanaPlugin, bridgePlugin, x402Plugin];

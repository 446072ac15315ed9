import { bridgePlugin } from "./bridge/plugin.ts";
import { evmPlugin } from "./evm/plugin.ts";
import type { RailPlugin } from "./registration.ts";
import { solanaPlugin } from "./solana/plugin.ts";
import { x402Plugin } from "./x402/plugin.ts";

/**
 * Every rail the service runs with, registered once: its network type's spec and
 * configuration (`plugins/config.ts`), its tables and its process role (`plugins/roles.ts`,
 * `scripts/role.ts`) come from this list. Adding a network type is its folder, one entry here
 * and its ports' line in `registry.ts` (kept apart: these declarations are light, for
 * Ponder's config, and ports load db/ and chain libraries). It sits in rails/ because rails/
 * code reads it and cannot import the top-level composition (`plugins/`), which imports rails/.
 */
export const plugins: readonly RailPlugin[] = [evmPlugin, solanaPlugin, bridgePlugin, x402Plugin];

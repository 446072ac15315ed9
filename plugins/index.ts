import type { Role } from "../config/index.ts";
import type { RailPlugin } from "../rails/registration.ts";
import { bridgePlugin } from "../rails/bridge/plugin.ts";
import { evmPlugin } from "../rails/evm/plugin.ts";
import { solanaPlugin } from "../rails/solana/plugin.ts";

/**
 * Every rail the service runs with, registered once: its configuration (`plugins/config.ts`),
 * tables (drizzle-kit reads `rails/<name>/tables.ts`) and process role (`scripts/role.ts`) come from here. Adding a
 * network type is its folder under `rails/` plus one line here (and its ports' line in
 * `rails/registry.ts`). The composition roots import this folder; config/, db/ and rails/ never do.
 */
export const plugins: readonly RailPlugin[] = [evmPlugin, solanaPlugin, bridgePlugin];

/** The rail that runs process role `name`, if one does. */
export const railRole = (name: string) => plugins.find((p) => p.role?.name === name)?.role;

/** The process roles the rails add (the Solana subscriber), in registration order. */
export const railRoles = (): Role[] => plugins.flatMap((p) => (p.role ? [p.role.name] : []));

import type { Role } from "../config/index.ts";
import { plugins } from "../rails/plugins.ts";

/**
 * The composition of the registered rails (`rails/plugins.ts`, their declarations): what
 * configuration (`config.ts`), roles and secrets (`roles.ts`) and the process entry points are
 * built from. The composition roots import this folder; config/, db/ and rails/ never do.
 */
export { plugins };

/** The rail that runs process role `name`, if one does. */
export const railRole = (name: string) => plugins.find((p) => p.role?.name === name)?.role;

/** The process roles the rails add (the Solana subscriber, the local bridge's relayer), in registration order. */
export const railRoles = (): Role[] => plugins.flatMap((p) => (p.role ? [p.role.name] : []));

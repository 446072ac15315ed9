import type { Role } from "../../config/index.ts";
import { envForRole } from "../../plugins/roles.ts";

/**
 * What one role is started with: `env` without the secrets another role reads
 * (`config/roles.ts`), and the operators' public addresses (`publicAddresses(config)` of
 * the supervisor, which holds the keys), each where `env` does not set it: the API reports
 * the operators' balances without ever seeing a key.
 */
export function roleEnv(env: Record<string, string | undefined>, role: Role, addresses: Readonly<Record<string, string | null>>): Record<string, string | undefined> {
  const missing = Object.entries(addresses).filter((entry): entry is [string, string] => !!entry[1] && !env[entry[0]]);
  return { ...envForRole(env, role), ...Object.fromEntries(missing) };
}

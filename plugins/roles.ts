import { CORE_ROLES, CORE_SECRET_READERS, envForRoleOf, foreignSecretsOf, type Config, type Role } from "../config/index.ts";
import { railConfigSections } from "./config.ts";

/** Every process the service runs as (`scripts/role.ts`): its own and each registered rail's. */
export const ROLES: readonly Role[] = [...CORE_ROLES, ...railConfigSections.flatMap((s) => (s.role ? [s.role] : []))];

/** Each secret that signs for money, and the one role that reads it: the service's and each rail's (see `config/roles.ts`). */
export const SECRET_READERS: Readonly<Record<string, Role>> = Object.assign({}, CORE_SECRET_READERS, ...railConfigSections.map((s) => s.secretReaders ?? {}));

/** The secrets set in `env` that `role` must not read: what its start ignores and removes. */
export const foreignSecrets = (env: Record<string, string | undefined>, role: Role | undefined): string[] => foreignSecretsOf(SECRET_READERS, env, role);

/** `env` without the secrets `role` must not read, marked with the role (so a child process, Ponder, builds the same view). */
export const envForRole = (env: Record<string, string | undefined>, role: Role): Record<string, string | undefined> => envForRoleOf(SECRET_READERS, env, role);

/**
 * The operators' public addresses in `config`, by the variable a role reads each from: the
 * service's (`OPERATOR_ADDRESS`) and each rail's (`RailConfigSection.publicAddresses`); null
 * where there is none. What a launcher hands every role (`scripts/lib/roleEnv.ts`).
 */
export const publicAddresses = (config: Config): Record<string, string | null> =>
  Object.assign({ OPERATOR_ADDRESS: config.operatorAddress }, ...railConfigSections.map((s) => s.publicAddresses?.(config[s.key]) ?? {}));

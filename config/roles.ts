/** The service's own processes (`scripts/role.ts`); each rail may add its own (`RailRoles`; `plugins/roles.ts` lists them all). */
export const CORE_ROLES = ["api", "worker", "indexer", "relayer"] as const;

/** The process roles the rails add, by name (the Solana subscriber: `solana`); augmented from each rail's folder (`declare module`). */
// biome-ignore lint/suspicious/noEmptyInterface: filled by each rail's module augmentation.
export interface RailRoles {}

export type Role = (typeof CORE_ROLES)[number] | (keyof RailRoles & string);

/**
 * Each secret that signs for money, and the one role that reads it. Every other role's
 * configuration is built as if it were unset, and `scripts/role.ts` removes it from the
 * process's environment at start: the internet-facing API never holds a key that moves
 * money (the intent signer only lets a customer pay what the service asked), and a bug in a
 * role can leak only what that role holds. A process that runs everything (`npm start`'s
 * supervisor, tests, the CLI) names no role and keeps them all. A rail's secrets are its
 * section's (`RailConfigSection.secretReaders`); `plugins/roles.ts` has every one.
 */
export const CORE_SECRET_READERS: Readonly<Record<string, Role>> = {
  /** Sweeps and refunds every EVM deposit address (the ForwarderFactory's operator). */
  OPERATOR_PRIVATE_KEY: "worker",
  /** Signs payment intents (PaymentSettlement's operator). */
  INTENT_SIGNER_PRIVATE_KEY: "api",
  /** The local bridge's liquidity (sandbox). */
  BRIDGE_LOCAL_RELAYER_KEY: "relayer",
};

type Readers = Readonly<Record<string, Role>>;

/** Whether `role` reads secret `name` (no role: a process that runs them all), by `readers`: each secret's one reader. */
export const readsSecret = (readers: Readers, role: Role | undefined, name: string): boolean => role === undefined || readers[name] === undefined || readers[name] === role;

/** The secrets set in `env` that `role` must not read: what its start ignores and removes. */
export const foreignSecretsOf = (readers: Readers, env: Record<string, string | undefined>, role: Role | undefined): string[] =>
  Object.keys(readers).filter((name) => env[name] !== undefined && env[name]!.trim() !== "" && !readsSecret(readers, role, name));

/** `env` without the secrets `role` must not read, marked with the role (so a child process, Ponder, builds the same view). */
export function envForRoleOf(readers: Readers, env: Record<string, string | undefined>, role: Role): Record<string, string | undefined> {
  const kept: Record<string, string | undefined> = { ...env, STABLEPAY_ROLE: role };
  for (const name of foreignSecretsOf(readers, env, role)) delete kept[name];
  return kept;
}

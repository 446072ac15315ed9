/** The processes the service runs as (`scripts/role.ts`). */
export const ROLES = ["api", "worker", "indexer", "solana", "relayer"] as const;
export type Role = (typeof ROLES)[number];

/**
 * Each secret that signs for money, and the one role that reads it. Every other role's
 * configuration is built as if it were unset, and `scripts/role.ts` removes it from the
 * process's environment at start: the internet-facing API never holds a key that moves
 * money (the intent signer only lets a customer pay what the service asked), and a bug in a
 * role can leak only what that role holds. A process that runs everything (`npm start`'s
 * supervisor, tests, the CLI) names no role and keeps them all.
 */
export const SECRET_READERS: Readonly<Record<string, Role>> = {
  /** Sweeps and refunds every EVM deposit address (the ForwarderFactory's operator). */
  OPERATOR_PRIVATE_KEY: "worker",
  /** Pays Solana sweeps' fees. */
  SOLANA_OPERATOR_SECRET_KEY: "worker",
  /** Every Solana deposit key derives from it. */
  SOLANA_DEPOSIT_SEED: "worker",
  /** Signs payment intents (PaymentSettlement's operator). */
  INTENT_SIGNER_PRIVATE_KEY: "api",
  /** The local bridge's liquidity (sandbox). */
  BRIDGE_LOCAL_RELAYER_KEY: "relayer",
};

/** Whether `role` reads secret `name` (no role: a process that runs them all). */
export const readsSecret = (role: Role | undefined, name: string): boolean => role === undefined || SECRET_READERS[name] === undefined || SECRET_READERS[name] === role;

/** The secrets set in `env` that `role` must not read: what its start ignores and removes. */
export const foreignSecrets = (env: Record<string, string | undefined>, role: Role | undefined): string[] =>
  Object.keys(SECRET_READERS).filter((name) => env[name] !== undefined && env[name]!.trim() !== "" && !readsSecret(role, name));

/** `env` without the secrets `role` must not read, marked with the role (so a child process, Ponder, builds the same view). */
export function envForRole(env: Record<string, string | undefined>, role: Role): Record<string, string | undefined> {
  const kept: Record<string, string | undefined> = { ...env, STABLEPAY_ROLE: role };
  for (const name of foreignSecrets(env, role)) delete kept[name];
  return kept;
}

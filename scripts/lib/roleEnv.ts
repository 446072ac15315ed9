import type { Role } from "../../config/index.ts";
import { envForRole } from "../../plugins/roles.ts";

/**
 * What one role is started with: `env` without the secrets another role reads
 * (`config/roles.ts`), and the operators' public addresses, which this supervisor reads from
 * the keys it holds, so the API reports the operators' balances without ever seeing a key.
 */
export function roleEnv(env: Record<string, string | undefined>, role: Role, operators: { evm: string | null; solana: string | null }): Record<string, string | undefined> {
  return {
    ...envForRole(env, role),
    ...(operators.evm && !env.OPERATOR_ADDRESS ? { OPERATOR_ADDRESS: operators.evm } : {}),
    ...(operators.solana && !env.SOLANA_OPERATOR_ADDRESS ? { SOLANA_OPERATOR_ADDRESS: operators.solana } : {}),
  };
}

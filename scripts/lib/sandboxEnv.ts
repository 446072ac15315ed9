import { randomBytes } from "node:crypto";
import { SANDBOX_RATES, sandboxAccounts } from "./sandboxChains.ts";
import { sandboxDepositSeed } from "./sandboxSolana.ts";

/**
 * The roles' environment in the sandbox: what the operator set (blank counts as unset, as
 * everywhere), over the sandbox's own defaults, under what this start made (its database,
 * Redis and chains). Every role's secrets are here: `npm start` gives each role only its own
 * (`roleEnv.ts`).
 */
export function sandboxEnv(given: Record<string, string>, made: { DATABASE_URL: string; REDIS_URL: string; NETWORKS_FILE: string; SOLANA_OPERATOR_SECRET_KEY: string }): Record<string, string> {
  return {
    OPERATOR_PRIVATE_KEY: sandboxAccounts.operator,
    INTENT_SIGNER_PRIVATE_KEY: sandboxAccounts.intentSigner,
    SOLANA_OPERATOR_SECRET_KEY: made.SOLANA_OPERATOR_SECRET_KEY,
    SOLANA_DEPOSIT_SEED: sandboxDepositSeed,
    RATES_STATIC: SANDBOX_RATES,
    // Cross-chain payments between the local chains through the local bridge and its relayer.
    BRIDGE_ADAPTER: "local",
    BRIDGE_LOCAL_RELAYER_KEY: sandboxAccounts.relayer,
    BRIDGE_POLL_INTERVAL_MS: "1000",
    // The sandbox's operator token (metrics, queue dashboard): a fresh one per start unless set.
    OPERATOR_TOKEN: randomBytes(24).toString("hex"),
    ...given,
    APP_ENV: "development",
    DATABASE_URL: made.DATABASE_URL,
    REDIS_URL: made.REDIS_URL,
    NETWORKS_FILE: made.NETWORKS_FILE,
  };
}

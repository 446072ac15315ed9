import type { Config } from "../../config/index.ts";
import { ServiceUnavailableError } from "../../domain/errors.ts";
import { createIntentSigner, type IntentSigner } from "./settlement/intentSigner.ts";

const signers = new Map<string, IntentSigner>();

/** Why contract payments cannot be signed in this process; null when they can. */
export const NO_INTENT_SIGNER = "Payment signing is not configured (INTENT_SIGNER_PRIVATE_KEY).";

/**
 * The process's signer of payment intents (INTENT_SIGNER_PRIVATE_KEY, the PaymentSettlement
 * contract's `operator`; never the key that sweeps), with `SIGNING_THREADS` threads: one per
 * key, started on the first payment that needs a signature (a process that never signs
 * starts no thread).
 */
export function intentSignerOf(config: Config): IntentSigner {
  const key = config.intentSignerPrivateKey;
  if (!key) throw new ServiceUnavailableError(NO_INTENT_SIGNER);
  const id = `${key}:${config.payments.signingThreads}`;
  let signer = signers.get(id);
  if (!signer) signers.set(id, (signer = createIntentSigner(key, config.payments.signingThreads)));
  return signer;
}

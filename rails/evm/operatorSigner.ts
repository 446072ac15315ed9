import type { Config } from "../../config/index.ts";
import { ServiceUnavailableError } from "../../domain/errors.ts";
import { createIntentSigner, type IntentSigner } from "./settlement/intentSigner.ts";

const signers = new Map<string, IntentSigner>();

/**
 * The process's intent signer for the operator's key, with `SIGNING_THREADS` threads: one per
 * key, started on the first payment that needs a signature (a process that never signs
 * starts no thread).
 */
export function operatorSigner(config: Config): IntentSigner {
  const key = config.operatorPrivateKey;
  if (!key) throw new ServiceUnavailableError("Payment signing is not configured (OPERATOR_PRIVATE_KEY).");
  const id = `${key}:${config.payments.signingThreads}`;
  let signer = signers.get(id);
  if (!signer) signers.set(id, (signer = createIntentSigner(key, config.payments.signingThreads)));
  return signer;
}

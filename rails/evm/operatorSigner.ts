import type { Config } from "../../config/index.ts";
import { ServiceUnavailableError } from "../../domain/errors.ts";
import { createDigestSigner, type DigestSigner } from "./settlement/digestSigner.ts";

const signers = new Map<string, DigestSigner>();

/**
 * The process's signer for the operator's key, with `SIGNING_THREADS` threads: one per
 * key, started on the first payment that needs a signature (a process that never signs
 * starts no thread).
 */
export function operatorSigner(config: Config): DigestSigner {
  const key = config.operatorPrivateKey;
  if (!key) throw new ServiceUnavailableError("Payment signing is not configured (OPERATOR_PRIVATE_KEY).");
  const id = `${key}:${config.payments.signingThreads}`;
  let signer = signers.get(id);
  if (!signer) signers.set(id, (signer = createDigestSigner(key, config.payments.signingThreads)));
  return signer;
}

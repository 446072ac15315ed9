import { createKeyPairSignerFromBytes, getBase58Decoder, type KeyPairSigner } from "@solana/kit";
import { decodeTransactionFromPayload } from "@x402/svm";
import type { Config } from "../../config/index.ts";

const operators = new WeakMap<Config, Promise<KeyPairSigner>>();

/** The Solana operator as x402's signer takes it (the worker's alone: the API holds only its address). */
export function svmOperator(config: Config): Promise<KeyPairSigner> {
  const secret = config.solana.operatorSecretKey;
  if (!secret) throw new Error("no Solana operator key (SOLANA_OPERATOR_SECRET_KEY): x402 payments on Solana cannot settle");
  let operator = operators.get(config);
  if (!operator) {
    operator = createKeyPairSignerFromBytes(secret);
    operators.set(config, operator);
  }
  return operator;
}

/**
 * The id the transaction will have once the operator co-signs it as fee payer: its first
 * signature, which Ed25519 makes the same every time. Known before sending, it is what a
 * re-run looks up on chain instead of sending again.
 */
export async function operatorSignature(operator: KeyPairSigner, transaction: string): Promise<string> {
  const { messageBytes } = decodeTransactionFromPayload({ transaction });
  const [signatures] = await operator.signMessages([{ content: Uint8Array.from(messageBytes), signatures: {} }]);
  return getBase58Decoder().decode(signatures![operator.address]!);
}

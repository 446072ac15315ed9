import type { Config } from "../../config/index.ts";
import { readOnlyEvmSigner } from "./evmSigners.ts";
import type { FacilitatorSigners } from "./facilitator.ts";

// Solana's signers load on use (they import Solana's libraries): an EVM-only deployment never loads them.
const svmSigners = () => require("./svmSigners.ts") as typeof import("./svmSigners.ts");

/** The API's signers: they read the chains and name the operators' public addresses; none signs. Solana is served once its operator's address is known. */
export function apiSigners(config: Config): FacilitatorSigners {
  const feePayer = config.solana.operatorAddress;
  return {
    evm: (network) => readOnlyEvmSigner(network, config.operatorAddress),
    svm: feePayer ? (network) => svmSigners().readOnlySvmSigner(network, feePayer) : null,
  };
}

/**
 * The worker's signers, where it holds the network type's operator key: on Solana the operator
 * co-signs as fee payer through x402's own settle; on EVM x402's scheme only verifies again
 * (the send is the settlement contract's call, `sendSettlement.ts`), so its signer reads.
 */
export async function operatorSigners(config: Config): Promise<FacilitatorSigners> {
  const solana = config.solana.operatorSecretKey ? await (await import("./svmOperator.ts")).svmOperator(config) : null;
  const timeout = config.x402.confirmationTimeoutMs;
  return {
    evm: config.operatorPrivateKey ? (network) => readOnlyEvmSigner(network, config.operatorAddress) : null,
    svm: solana ? (network) => svmSigners().operatorSvmSigner(network, solana, timeout) : null,
  };
}

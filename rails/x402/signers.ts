import type { Config } from "../../config/index.ts";
import { operatorEvmSigner, readOnlyEvmSigner } from "./evmSigners.ts";
import type { FacilitatorSigners } from "./facilitator.ts";
import { svmOperator } from "./svmOperator.ts";
import { operatorSvmSigner, readOnlySvmSigner } from "./svmSigners.ts";

/** The API's signers: they read the chains and name the operators' public addresses; none signs. Solana is served once its operator's address is known. */
export function apiSigners(config: Config): FacilitatorSigners {
  const feePayer = config.solana.operatorAddress;
  return {
    evm: (network) => readOnlyEvmSigner(network, config.operatorAddress),
    svm: feePayer ? (network) => readOnlySvmSigner(network, feePayer) : null,
  };
}

/** The worker's signers: each network type's operator key, where the worker holds one. */
export async function operatorSigners(config: Config, databaseUrl: string): Promise<FacilitatorSigners> {
  const evmKey = config.operatorPrivateKey;
  const solana = config.solana.operatorSecretKey ? await svmOperator(config) : null;
  const timeout = config.x402.confirmationTimeoutMs;
  return {
    evm: evmKey ? (network) => operatorEvmSigner(network, evmKey, databaseUrl, timeout) : null,
    svm: solana ? (network) => operatorSvmSigner(network, solana, timeout) : null,
  };
}

import { createSolanaRpc, type Address, type KeyPairSigner, type MessagePartialSigner, type TransactionSigner } from "@solana/kit";
import { toFacilitatorSvmSigner, type FacilitatorRpcConfig, type FacilitatorSvmSigner } from "@x402/svm";
import type { Network } from "../../config/index.ts";
import { withTimeout } from "../../domain/withTimeout.ts";
import { x402Names } from "./networkNames.ts";
import { refuseToSettle } from "./noSettlementKeyError.ts";

/**
 * x402's signer reads the network over our RPC under every name x402 gives it, v2's and v1's
 * (its own defaults know only the public clusters' public endpoints).
 */
function rpcOf(network: Network): FacilitatorRpcConfig {
  if (!network.rpcUrl) throw new Error(`network ${network.shortName} has no Solana RPC`);
  const rpc = createSolanaRpc(network.rpcUrl);
  return Object.fromEntries(x402Names(network).map((name) => [name, rpc])) as unknown as FacilitatorRpcConfig;
}

/**
 * The API's: x402's own signer over the chain's RPC (simulation, balances), with the
 * operator's public key as the fee payer it names, and nothing that signs or sends.
 */
export function readOnlySvmSigner(network: Network, operatorAddress: string): FacilitatorSvmSigner {
  const keyless = { address: operatorAddress as Address, signMessages: refuseToSettle, signTransactions: refuseToSettle } as unknown as TransactionSigner & MessagePartialSigner;
  const { getSigner: _, ...reader } = toFacilitatorSvmSigner(keyless, rpcOf(network));
  return { ...reader, signTransaction: refuseToSettle, sendTransaction: refuseToSettle };
}

/**
 * The worker's: the operator co-signs each transfer as its fee payer and sends it. The wait
 * for confirmation is bounded by `confirmationTimeoutMs`, past which x402 answers
 * `settlement_pending` (the worker then follows the signature itself).
 */
export function operatorSvmSigner(network: Network, operator: KeyPairSigner, confirmationTimeoutMs: number): FacilitatorSvmSigner {
  const signer = toFacilitatorSvmSigner(operator, rpcOf(network));
  return {
    ...signer,
    confirmTransaction: (signature, name) => withTimeout(signer.confirmTransaction(signature, name), confirmationTimeoutMs, `confirmation of ${signature}`),
  };
}

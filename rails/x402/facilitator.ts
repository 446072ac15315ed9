import { x402Facilitator } from "@x402/core/facilitator";
import type { FacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { ExactEvmSchemeV1 } from "@x402/evm/exact/v1/facilitator";
import type { FacilitatorSvmSigner } from "@x402/svm";
import type { Config, Network } from "../../config/index.ts";
import { v1NetworkName, x402Name, x402Networks } from "./networkNames.ts";
import { SVM_LIMITS } from "./svmLimits.ts";

export { v1NetworkName, x402Networks };

/** The facilitator's signers per network type: the API's only read, the worker's hold the operators' keys. A type without one is not served. */
export type FacilitatorSigners = { evm: ((network: Network) => FacilitatorEvmSigner) | null; svm: ((network: Network) => FacilitatorSvmSigner) | null };

/**
 * The protocol's own facilitator with the `exact` scheme on every served network, v2 by its
 * CAIP-2 id and v1 under its name where x402 v1 has one: on EVM, and on Solana with the
 * operator as fee payer. `signers` decide what it can do.
 */
export function buildFacilitator(config: Config, signers: FacilitatorSigners): x402Facilitator {
  const facilitator = new x402Facilitator();
  for (const network of x402Networks(config)) {
    if (network.type === "solana") {
      // Loaded here, where a Solana network is served: an EVM-only deployment never loads Solana's libraries.
      const { ExactSvmScheme } = require("@x402/svm/exact/facilitator") as typeof import("@x402/svm/exact/facilitator");
      if (!signers.svm) continue;
      const signer = signers.svm(network);
      facilitator.register(x402Name(network) as `${string}:${string}`, new ExactSvmScheme(signer, undefined, SVM_LIMITS));
      // v1 (mainnet and devnet have names): its scheme does not take the limits; the payload's check holds it to them (`computeBudgetProblem`).
      const v1Name = v1NetworkName(network);
      if (v1Name) {
        const { ExactSvmSchemeV1 } = require("@x402/svm/exact/v1/facilitator") as typeof import("@x402/svm/exact/v1/facilitator");
        facilitator.registerV1(v1Name as `${string}:${string}`, new ExactSvmSchemeV1(signer));
      }
      continue;
    }
    if (!signers.evm) continue;
    const signer = signers.evm(network);
    // Simulated again right before sending: an authorization that would revert costs the operator's gas for nothing.
    facilitator.register(x402Name(network) as `${string}:${string}`, new ExactEvmScheme(signer, { simulateInSettle: true }));
    const v1Name = v1NetworkName(network);
    if (v1Name) facilitator.registerV1(v1Name as `${string}:${string}`, new ExactEvmSchemeV1(signer, { simulateInSettle: true }));
  }
  return facilitator;
}

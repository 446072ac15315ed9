import { x402Facilitator } from "@x402/core/facilitator";
import type { FacilitatorEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/facilitator";
import { ExactEvmSchemeV1 } from "@x402/evm/exact/v1/facilitator";
import { EVM_NETWORK_CHAIN_ID_MAP as v1ChainIds } from "@x402/evm/v1";
import type { Config, Network } from "../../config/index.ts";
import { evmCaip2 } from "../../domain/x402.ts";

/** The x402 v1 name of an EVM chain (`base-sepolia`), when x402 v1 has one; local chains have none. */
export function v1NetworkName(chainId: string): string | null {
  return Object.entries(v1ChainIds).find(([, id]) => id === Number(chainId))?.[0] ?? null;
}

/** The enabled EVM networks the facilitator serves: where an `exact` (EIP-3009) payment can settle, through the settlement contract. */
export const x402Networks = (config: Config): Network[] => config.networks.filter((n) => n.enabled && n.type === "evm" && n.rpcUrl && n.settlementContract);

/**
 * The protocol's own facilitator with the `exact` scheme on every served EVM network (v2 by
 * CAIP-2 id; v1 under its name, where x402 v1 has one). `signerFor` decides what it can do:
 * the API's signers only read, the worker's hold the operator key.
 */
export function buildFacilitator(config: Config, signerFor: (network: Network) => FacilitatorEvmSigner): x402Facilitator {
  const facilitator = new x402Facilitator();
  for (const network of x402Networks(config)) {
    const signer = signerFor(network);
    // Simulated again right before sending: an authorization that would revert costs the operator's gas for nothing.
    facilitator.register(evmCaip2(network.chainId), new ExactEvmScheme(signer, { simulateInSettle: true }));
    const v1Name = v1NetworkName(network.chainId);
    if (v1Name) facilitator.registerV1(v1Name as `${string}:${string}`, new ExactEvmSchemeV1(signer, { simulateInSettle: true }));
  }
  return facilitator;
}

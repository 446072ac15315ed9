import type { FacilitatorEvmSigner } from "@x402/evm";
import type { Hex } from "viem";
import type { Network } from "../../config/index.ts";
import { evmClient } from "../evm/client.ts";

/** Raised if the API's facilitator ever tries to move money: it holds no key, by design. */
export class NoSettlementKeyError extends Error {
  override name = "NoSettlementKeyError";
}

/**
 * A facilitator signer that only reads (the API's): verifying an authorization needs the
 * chain's view (signature, balance, simulation), never a key. The worker verifies with it too:
 * it settles through the settlement contract (`sendSettlement.ts`), not through x402's send.
 */
export function readOnlyEvmSigner(network: Network, operatorAddress: Hex | null): FacilitatorEvmSigner {
  const client = evmClient(network);
  const refuse = async (): Promise<never> => {
    throw new NoSettlementKeyError("the API holds no key that moves money: settlements are submitted by the worker");
  };
  return {
    getAddresses: () => (operatorAddress ? [operatorAddress] : []),
    readContract: (args) => client.readContract(args as Parameters<typeof client.readContract>[0]),
    verifyTypedData: (args) => client.verifyTypedData(args as Parameters<typeof client.verifyTypedData>[0]),
    getCode: (args) => client.getCode(args),
    writeContract: refuse,
    sendTransaction: refuse,
    waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
  };
}

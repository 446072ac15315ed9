import type { FacilitatorEvmSigner } from "@x402/evm";
import type { Hex } from "viem";
import type { Network } from "../../config/index.ts";
import { evmClient } from "../evm/client.ts";
import { refuseToSettle } from "./noSettlementKeyError.ts";

/**
 * A facilitator signer that only reads (the API's): verifying an authorization needs the
 * chain's view (signature, balance, simulation), never a key. The worker verifies with it too:
 * it settles through the settlement contract (`sendSettlement.ts`), not through x402's send.
 */
export function readOnlyEvmSigner(network: Network, operatorAddress: Hex | null): FacilitatorEvmSigner {
  const client = evmClient(network);
  return {
    getAddresses: () => (operatorAddress ? [operatorAddress] : []),
    readContract: (args) => client.readContract(args as Parameters<typeof client.readContract>[0]),
    verifyTypedData: (args) => client.verifyTypedData(args as Parameters<typeof client.verifyTypedData>[0]),
    getCode: (args) => client.getCode(args),
    writeContract: refuseToSettle,
    sendTransaction: refuseToSettle,
    waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
  };
}

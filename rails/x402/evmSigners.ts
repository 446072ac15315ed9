import type { FacilitatorEvmSigner } from "@x402/evm";
import type { Hex } from "viem";
import type { Network } from "../../config/index.ts";
import { evmClient } from "../evm/client.ts";
import { refuseToSettle } from "./noSettlementKeyError.ts";

/**
 * How long a payer's code is remembered: x402's verify asks for it twice in a row (is the
 * payer a counterfactual wallet, then how to check its signature), and concurrent verifies of
 * one agent ask at once. A few seconds cannot hide a change that matters: the simulation and
 * the settlement contract's own call are what decide.
 */
const CODE_TTL_MS = 2_000;
const CODE_ENTRIES = 10_000;

/**
 * A facilitator signer that only reads (the API's): verifying an authorization needs the
 * chain's view (signature, balance, simulation), never a key. The worker verifies with it too:
 * it settles through the settlement contract (`sendSettlement.ts`), not through x402's send.
 */
export function readOnlyEvmSigner(network: Network, operatorAddress: Hex | null): FacilitatorEvmSigner {
  const client = evmClient(network);
  const codes = new Map<string, { at: number; code: Promise<Hex | undefined> }>();
  const getCode = ({ address }: { address: Hex }): Promise<Hex | undefined> => {
    const key = address.toLowerCase();
    const now = performance.now();
    const known = codes.get(key);
    if (known && now - known.at < CODE_TTL_MS) return known.code;
    if (codes.size >= CODE_ENTRIES) codes.clear();
    const code = client.getCode({ address });
    codes.set(key, { at: now, code });
    // A failed read is not remembered: the next asks again.
    code.catch(() => codes.get(key)?.code === code && codes.delete(key));
    return code;
  };
  return {
    getAddresses: () => (operatorAddress ? [operatorAddress] : []),
    readContract: (args) => client.readContract(args as Parameters<typeof client.readContract>[0]),
    // An EOA's signature is recovered here; only a contract's (ERC-1271/6492) needs the chain.
    verifyTypedData: (args) => client.verifyTypedData({ ...(args as Parameters<typeof client.verifyTypedData>[0]), mode: "eoa" }),
    getCode,
    writeContract: refuseToSettle,
    sendTransaction: refuseToSettle,
    waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
  };
}

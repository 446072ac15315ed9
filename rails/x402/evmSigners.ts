import { toFacilitatorEvmSigner, type FacilitatorEvmSigner } from "@x402/evm";
import { createWalletClient, http, publicActions, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Network } from "../../config/index.ts";
import { withChainLock } from "../chainLock.ts";
import { evmClient } from "../evm/client.ts";
import { refuseToSettle } from "./noSettlementKeyError.ts";

/**
 * A facilitator signer that only reads (the API's): verifying an authorization needs the
 * chain's view (signature, balance, simulation), never a key. Settling happens in the worker.
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

/**
 * The worker's signer: the operator key pays the gas of each settlement. Sending holds the
 * chain's operator lock (nonces shared with sweeps and refunds, across workers); receipt waits
 * do not, and are bounded by `confirmationTimeoutMs`, past which x402 answers `settlement_pending`.
 */
export function operatorEvmSigner(network: Network, operatorKey: Hex, databaseUrl: string, confirmationTimeoutMs: number): FacilitatorEvmSigner {
  if (!network.rpcUrl) throw new Error(`network ${network.shortName} has no EVM RPC`);
  const account = privateKeyToAccount(operatorKey);
  const chain = { id: Number(network.chainId), name: network.name, nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [network.rpcUrl] } } };
  const client = createWalletClient({ account, chain, transport: http(network.rpcUrl), pollingInterval: 100 }).extend(publicActions);
  const signer = toFacilitatorEvmSigner({ ...client, address: account.address } as unknown as Parameters<typeof toFacilitatorEvmSigner>[0], { confirmationTimeoutMs });
  return {
    ...signer,
    writeContract: (args) => withChainLock(databaseUrl, network.chainId, () => signer.writeContract(args)),
    sendTransaction: (args) => withChainLock(databaseUrl, network.chainId, () => signer.sendTransaction(args)),
  };
}

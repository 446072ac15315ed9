import { type Address, type Hex, createPublicClient, createWalletClient, getAddress, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { pinnedChain } from "../pinnedChain.ts";
import { ContractDeployError } from "./errors.ts";

export type SendDeploymentParameters = {
  /** For error messages. */
  contractName: string;
  rpcUrl: string;
  chainId: number;
  deployerPrivateKey: Hex;
  /** Init code with constructor arguments (viem's `encodeDeployData`). */
  deployData: Hex;
};

/** Sends a contract-creation transaction, waits for its receipt and returns the checksummed address. */
export async function sendDeployment(parameters: SendDeploymentParameters): Promise<Address> {
  const { contractName, rpcUrl, chainId, deployerPrivateKey, deployData } = parameters;
  const chain = pinnedChain(chainId, `chain ${chainId}`, rpcUrl);
  const account = privateKeyToAccount(deployerPrivateKey);
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl), pollingInterval: 250 });
  const walletClient = createWalletClient({ account, chain, transport: http(rpcUrl) });
  const hash = await walletClient.sendTransaction({ data: deployData });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== "success") throw new ContractDeployError(contractName, hash, "reverted");
  if (!receipt.contractAddress) throw new ContractDeployError(contractName, hash, "created no contract");
  return getAddress(receipt.contractAddress);
}

import { type Address, type Hex, encodeDeployData } from "viem";
import { forwarderFactoryAbi, forwarderFactoryBytecode } from "../../../contracts/artifacts/index.ts";
import { sendDeployment } from "./sendDeployment.ts";

export type DeployForwarderFactoryParameters = {
  rpcUrl: string;
  chainId: number;
  deployerPrivateKey: Hex;
  /** The only account allowed to deploy forwarders and sweep them. */
  operator: Address;
  /** May replace the operator. */
  owner: Address;
};

/** Deploys `ForwarderFactory` and resolves with its checksummed address once mined. */
export function deployForwarderFactory(parameters: DeployForwarderFactoryParameters): Promise<Address> {
  const { operator, owner, ...connection } = parameters;
  return sendDeployment({
    ...connection,
    contractName: "ForwarderFactory",
    deployData: encodeDeployData({ abi: forwarderFactoryAbi, bytecode: forwarderFactoryBytecode, args: [operator, owner] }),
  });
}
